"""`blitzboard serve --lan` (what `scripts/run --lan` runs): it prints the address phones on the table's
Wi-Fi open, with a QR code, and a phone opening that address gets share links that point there too."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from app.lan import lan_address
from tests.browser.helpers import Phones, Server
from tests.servers import migrated, start_server

pytestmark = pytest.mark.browser


@pytest.fixture
def lan_server(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    address = lan_address()
    assert address, "this machine has a network interface besides loopback (CI's and this one do)"
    database = migrated(f"sqlite:///{tmp_path / 'lan.db'}")

    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "app.cli", "serve", "--lan", "--port", str(port)]

    server = start_server(database, tmp_path / "lan.log", cwd=tmp_path, command=command)
    try:
        printed = re.search(r"Phones on this Wi-Fi: open (http://\S+)", server.output())
        assert printed, server.output()
        yield server, printed.group(1)
    finally:
        server.stop()


def test_serve_lan_prints_the_lan_address_with_a_qr_code(lan_server: tuple[Server, str]):
    server, url = lan_server
    assert url == f"http://{lan_address()}:{server.port}"
    assert not url.startswith("http://127.")
    qr_rows = [line for line in server.output().splitlines() if re.fullmatch(r"[ █▀▄]{20,}", line.strip("\x1b[0m "))]
    assert len(qr_rows) >= 10, server.output()  # the QR code, drawn with block characters
    assert httpx.get(url + "/healthz", timeout=10).status_code == 200  # reachable on that address


def test_a_phone_opening_the_printed_address_gets_share_links_for_it(phones: Phones, lan_server: tuple[Server, str]):
    server, url = lan_server
    created = httpx.post(url + "/api/v1/games", json={"players": [{"name": "Ana"}, {"name": "Ben"}]}, timeout=10)
    assert created.status_code == 201
    game = created.json()
    assert game["urls"]["view"] == f"{url}/g/{game['id']}"  # even for a client on another address
    phone = phones.page(server)
    phone.goto(f"{url}/g/{game['id']}")
    expect(phone.get_by_role("heading", name=re.compile("Dutch Blitz"))).to_be_visible()
    expect(phone.locator("#view-link")).to_have_value(f"{url}/g/{game['id']}")
    expect(phone.locator("#share .qr svg")).to_be_visible()
