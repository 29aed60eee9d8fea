"""`blitzboard serve --lan`: serve the table's Wi-Fi. Listen on every interface, find the address phones
on the same network reach this machine at, and print it with a QR code to scan from the terminal."""

from __future__ import annotations

import io
import socket

import segno


def lan_address() -> str | None:
    """This machine's address on its local network: the one its default route leaves from (a UDP
    socket is "connected" to a private address, which sends nothing), or None without a network."""
    for probe in ("10.255.255.255", "192.168.255.255", "172.31.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))
                address = sock.getsockname()[0]
        except OSError:
            continue
        if address and not address.startswith("127.") and address != "0.0.0.0":
            return address
    return None


def lan_url(port: int) -> str | None:
    address = lan_address()
    return f"http://{address}:{port}" if address else None


def announcement(url: str) -> str:
    """What the terminal shows: the address, and a QR code of it for the phones."""
    qr = io.StringIO()
    segno.make(url, error="m").terminal(out=qr, compact=True, border=2)
    return (
        f"\nPhones on this Wi-Fi: open {url}\n"
        "(share links and QR codes on the pages use this address)\n\n" + qr.getvalue()
    )
