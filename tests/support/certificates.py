"""Certificates for a SASL_SSL test broker, made with openssl: a CA, a broker certificate it
signs for 127.0.0.1, the broker's PKCS12 keystore, and a second CA that signed nothing (the
"untrusted" one a client may be wrongly given)."""

from __future__ import annotations

import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

_DAYS = "2"
_KEY = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
_BROKER_EXTENSIONS = """basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
authorityKeyIdentifier = keyid
"""


@dataclass(frozen=True)
class BrokerCertificates:
    ca: Path  # PEM: signed the broker's certificate
    other_ca: Path  # PEM: a CA that signed nothing here
    keystore: Path  # PKCS12: the broker's certificate chain and key
    keystore_password: str


def _openssl(*args: str, cwd: Path) -> None:
    openssl = shutil.which("openssl")
    assert openssl is not None, "openssl is needed to make the test broker's certificates"
    subprocess.run([openssl, *args], cwd=cwd, check=True, capture_output=True)


def _ca(directory: Path, name: str) -> Path:
    _openssl(
        "req", "-x509", *_KEY, "-keyout", f"{name}.key", "-out", f"{name}.pem",
        "-days", _DAYS, "-subj", f"/CN=article-runtime test {name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=directory,
    )  # fmt: skip
    return directory / f"{name}.pem"


def make_certificates(directory: Path) -> BrokerCertificates:
    directory.mkdir(parents=True, exist_ok=True)
    ca = _ca(directory, "ca")
    other_ca = _ca(directory, "other-ca")
    (directory / "broker.ext").write_text(_BROKER_EXTENSIONS, encoding="utf-8")
    _openssl(
        "req", *_KEY, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1",
        cwd=directory,
    )  # fmt: skip
    _openssl(
        "x509", "-req", "-in", "broker.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "broker.pem", "-days", _DAYS, "-extfile", "broker.ext",
        cwd=directory,
    )  # fmt: skip
    password = secrets.token_hex(12)
    _openssl(
        "pkcs12", "-export", "-in", "broker.pem", "-inkey", "broker.key", "-certfile", "ca.pem",
        "-out", "broker.p12", "-passout", f"pass:{password}",
        cwd=directory,
    )  # fmt: skip
    return BrokerCertificates(ca, other_ca, directory / "broker.p12", password)
