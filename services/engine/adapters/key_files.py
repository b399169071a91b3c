"""Signing key files: where the gateway's keys come from on disk (docs/operations.md,
"Signing keys").

The signing and verifying are the domain's (:mod:`services.engine.domain.head_signing`);
this module only reads and creates the files and hands their bytes over, so the domain
does no I/O.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from services.engine.domain.head_signing import (
    HeadSigner,
    PublicKey,
    SigningKeyError,
    new_private_pem,
    parse_public_keys,
)

SIGNING_KEY_ENV = "TEOTI_SIGNING_KEY_FILE"
"""Path of the gateway's private key (PEM, PKCS#8), e.g. a mounted Kubernetes Secret."""
RETIRED_KEYS_ENV = "TEOTI_RETIRED_SIGNING_KEYS_FILE"
"""Path of a keys document (the well-known file's shape) of retired public keys."""
SERVE_KEY_FILE = "signing-key.pem"
"""``teoti serve``'s key, in its ``--data-dir`` (generated on first run, mode 0600)."""


def load_signer(path: Path) -> HeadSigner:
    """The signer of the PEM (PKCS#8) private key at ``path``; ``valid_from`` is the
    file's modification time. Raises SigningKeyError (unreadable, not Ed25519)."""
    try:
        data = path.read_bytes()
        modified = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError as exc:
        raise SigningKeyError(f"cannot read the signing key {path}: {exc}") from exc
    return HeadSigner.from_pem(data, modified.isoformat(timespec="milliseconds"), str(path))


def load_or_create_signer(path: Path) -> tuple[HeadSigner, bool]:
    """``teoti serve``'s key: the one at ``path``, or a new one written there first
    (mode 0600, created exclusively: two processes starting at once agree).
    Returns (signer, created). Raises SigningKeyError."""
    pem = new_private_pem()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_signer(path), False
    except OSError as exc:
        raise SigningKeyError(f"cannot create the signing key {path}: {exc}") from exc
    with os.fdopen(descriptor, "wb") as out:
        out.write(pem)
    return load_signer(path), True


def read_public_keys(path: Path) -> list[PublicKey]:
    """The public keys in a file: a keys document (the well-known file, or a retired
    keys file), or one PEM public key (``SubjectPublicKeyInfo``). Raises SigningKeyError."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SigningKeyError(f"cannot read public keys from {path}: {exc.strerror}") from exc
    return parse_public_keys(data, str(path))
