"""Everything that reads time in the emulator reads the controlled clock (manual mode)."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from gcbridge.clock import utc_iso
from gcbridge.emulator.control.clock import ControlledClock
from gcbridge.emulator.testing import running_emulator
from gcbridge.sso import SsoIssuer
from gcbridge.webhooks import EmulatorClock
from tests.emulator.control.support import Client

USER = {"id": "u-1", "username": "carol", "email": "carol@example.com"}


def _login(client: Client, sso_data: str) -> tuple[int, str]:
    r = client.http.post(
        "/api/pub/sso/login",
        json={"api_public_key": client.site.sso_public_key, "ssoData": sso_data},
    )
    return r.status_code, r.json().get("error", "")


def test_sso_data_age_is_judged_on_the_emulator_clock(client: Client) -> None:
    client.clock(action="advance", seconds=2 * 86400)  # two days ahead of the wall
    with EmulatorClock(client.emu.url) as clock:
        on_emulator_time = SsoIssuer(client.site.sso_secret, clock=clock, allow_weak_secret=True)
        token = on_emulator_time.issue(USER)
        assert _login(client, token) == (200, "")
        client.clock(action="advance", seconds=300 + 30 + 1)
        assert _login(client, token) == (401, "sso_expired")
    # issued on the wall clock, two days behind the emulator: too old there
    on_the_wall = SsoIssuer(client.site.sso_secret, allow_weak_secret=True)
    assert _login(client, on_the_wall.issue(USER)) == (401, "sso_expired")


def test_widget_sessions_expire_on_the_emulator_clock(client: Client) -> None:
    client.comment("signed in")  # a fresh session works
    client.clock(action="advance", seconds=30 * 86400)  # session_max_age: 30 days
    client.clock(action="advance", seconds=2)
    r = client.post_comment("too late")
    assert r.status_code == 401


def test_journal_and_comment_times_are_emulator_times(client: Client) -> None:
    client.setup("http://127.0.0.1:9/unreachable")
    client.clock(action="advance", seconds=5 * 86400)
    now_ms = client.health()["clock"]["now"]
    comment = client.comment("dated")
    (call,) = client.calls()
    assert call["created_at"] == utc_iso(now_ms / 1000)
    assert comment["created_at"].startswith(utc_iso(now_ms / 1000)[:16])


@pytest.mark.parametrize("mode", ["manual", "system"])
def test_after_a_restart_the_clock_starts_no_earlier_than_the_data_dir_s_latest_time(
    tmp_path: Path, mode: str
) -> None:
    data = tmp_path / "data"
    with running_emulator(data, clock_mode=mode) as emu, closing(Client(emu)) as client:
        client.setup("http://127.0.0.1:9/unreachable")
        client.clock(action="advance", seconds=3600)
        client.comment("an hour ahead")  # alice's session is issued at the advanced time
        client.clock(action="advance", seconds=0)  # its delivery attempt is journaled
        token = client.session()
        before = client.health()["clock"]["now"]

    with running_emulator(data, clock_mode=mode) as emu, closing(Client(emu)) as client:
        client._session = token
        after = client.health()["clock"]
        assert after["mode"] == mode
        assert after["now"] >= before  # time never goes back
        client.comment("still signed in")  # the session is not from the future
        client.clock(action="advance", seconds=60)  # the first call's retry falls due
        (_, call) = client.calls()  # newest first
        stamps = [a["started_at"] for a in call["attempts"]]
        assert len(stamps) == 2 and stamps == sorted(stamps)  # the journal never goes back


def test_controlled_clock_modes() -> None:
    wall = [1000.0]
    clock = ControlledClock("system", wall=lambda: wall[0])
    assert (clock.mode, clock.now()) == ("system", 1000.0)
    wall[0] = 1010.0
    assert clock.now() == 1010.0
    assert clock.freeze() == 1010.0
    wall[0] = 2000.0
    assert (clock.mode, clock.now()) == ("manual", 1010.0)
    clock.move_to(1100.0)
    clock.move_to(1050.0)  # never back
    assert clock.now() == 1100.0
    assert clock.resume() == 1100.0
    wall[0] = 2005.0
    assert (clock.mode, clock.now()) == ("system", 1105.0)
    clock.move_to(1205.0)
    assert clock.now() == 1205.0
    assert ControlledClock("manual", wall=lambda: 5.0).mode == "manual"
    with pytest.raises(ValueError):
        ControlledClock("fast")  # type: ignore[arg-type]
