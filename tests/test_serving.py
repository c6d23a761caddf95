import httpx
import pytest
from fastapi import FastAPI

from gcbridge.serving import BackgroundServer, _server_class


def test_app_knows_its_port_and_serves():
    def factory(port: int) -> FastAPI:
        app = FastAPI()

        @app.get("/port")
        def get_port() -> dict[str, int]:
            return {"port": port}

        return app

    with BackgroundServer(factory) as srv:
        assert httpx.get(srv.url + "/port").json() == {"port": srv.port}
    try:
        httpx.get(srv.url + "/port", timeout=1)
    except httpx.TransportError:
        pass
    else:
        raise AssertionError("server still answering after stop()")


def _app_with_lifespan(events: list[str]) -> FastAPI:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app: FastAPI):  # type: ignore[no-untyped-def]
        events.append("startup")
        yield
        events.append("shutdown")

    app = FastAPI(lifespan=lifespan)

    @app.get("/ok")
    def ok() -> dict[str, bool]:
        return {"ok": True}

    return app


@pytest.fixture
def hour_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's loop looks at should_exit once an hour unless a stop wakes it."""
    import uvicorn

    monkeypatch.setattr(_server_class(uvicorn), "tick", 3600.0)


def test_a_stop_wakes_the_server_and_runs_the_lifespan_shutdown(hour_tick: None) -> None:
    events: list[str] = []
    server = BackgroundServer(lambda _port: _app_with_lifespan(events)).start()
    assert httpx.get(server.url + "/ok").json() == {"ok": True}
    server.stop()  # without the wake the thread sleeps on for the hour (join gives up at 15 s)
    assert server._thread is not None and not server._thread.is_alive()
    assert events == ["startup", "shutdown"]


def test_a_stop_with_a_connection_open_closes_it_then_shuts_down(hour_tick: None) -> None:
    events: list[str] = []
    server = BackgroundServer(lambda _port: _app_with_lifespan(events)).start()
    with httpx.Client(base_url=server.url) as client:
        assert client.get("/ok").status_code == 200  # the connection stays open (keep-alive)
        server.stop()
        assert server._thread is not None and not server._thread.is_alive()
        assert events == ["startup", "shutdown"]
        with pytest.raises(httpx.TransportError):
            client.get("/ok", timeout=2)


def test_an_app_whose_startup_fails_is_reported_at_once() -> None:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(_app: FastAPI):  # type: ignore[no-untyped-def]
        raise OSError("the data directory is read-only")
        yield

    server = BackgroundServer(lambda _port: FastAPI(lifespan=lifespan), startup_timeout=30)
    with pytest.raises(RuntimeError, match="failed to start"):
        server.start()
