import httpx
from fastapi import FastAPI

from gcbridge.serving import BackgroundServer


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
