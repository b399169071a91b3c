"""Signed heads: the service's Ed25519 signature over what it says a game's log is.

A hash chain proves a log was not edited only against a head hash obtained some other
way: whoever edits an event can re-hash every later one and the header's head (issue 30
item 10). So the gateway signs what it commits to, on read (GetSignedHead, VerifyGame,
``teoti export``), never per move:

- The *statement* is the canonical JSON (:func:`canonical_json`, the log's own) of
  ``{"format": "teoti-signed-head", "format_version": 1, "game_id", "ruleset",
  "version", "head_hash", "finished", "key_id", "signed_at"}``: ``version`` / ``head_hash``
  the log's head as GetGame reports it, ``finished`` the game had ended at that head,
  ``key_id`` the signing key's id, ``signed_at`` ISO 8601 UTC (ms). The format tag keeps
  a signature of this from being read as anything else.
- The signature is Ed25519 (RFC 8032, the ``cryptography`` package) over the statement's
  UTF-8 bytes, base64 (standard alphabet, padded).
- A key id is the first 16 hex digits of SHA-256 of the raw 32-byte public key.

Public keys are published by ListSigningKeys and ``/.well-known/teoti-signing-keys.json``
as ``{"keys": [{"key_id", "algorithm": "ed25519", "public_key": base64 raw key,
"valid_from", "valid_until", "current"}]}`` (:meth:`SigningKeys.document`); retired keys
stay published so old signatures still verify (docs/operations.md, "Signing keys").

This module reads no file: key files (the gateway's private key, ``teoti serve``'s
generated one, published and retired public keys) are read and created by
:mod:`services.engine.adapters.key_files`, which hands their bytes to
:meth:`HeadSigner.from_pem` and :func:`parse_public_keys`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from services.engine.domain.records import canonical_json

STATEMENT_FORMAT = "teoti-signed-head"
STATEMENT_VERSION = 1
ALGORITHM = "ed25519"
WELL_KNOWN_PATH = "/.well-known/teoti-signing-keys.json"


class SignatureError(ValueError):
    """A signed head that does not verify; the message says which check failed."""


class SigningKeyError(ValueError):
    """A key file that cannot be used (unreadable, not Ed25519, malformed document)."""


def key_id(public_key: bytes) -> str:
    """The id of a raw 32-byte Ed25519 public key: SHA-256 of it, first 16 hex digits."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def new_private_pem() -> bytes:
    """A fresh Ed25519 private key as unencrypted PEM (PKCS#8), what a key file holds
    (:meth:`HeadSigner.from_pem` reads it back)."""
    return Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _raw(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _instant(text: str) -> datetime:
    """An ISO 8601 time as an aware datetime (naive taken as UTC); raises ValueError."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


KEY_FIELDS = ("key_id", "algorithm", "public_key", "valid_from", "valid_until", "current")
"""The fields of a keys document's entry, in order (ListSigningKeys' SigningKey has the
same names)."""


def key_entry(key: Any) -> dict[str, Any]:
    """A keys document's entry read by name from any object carrying :data:`KEY_FIELDS`
    (e.g. a ListSigningKeys ``SigningKey`` message); check it with
    :meth:`PublicKey.from_json`."""
    return {name: getattr(key, name) for name in KEY_FIELDS}


@dataclass(frozen=True, slots=True)
class PublicKey:
    """One published verification key.

    Attributes:
        key_id: :func:`key_id` of ``public_key``.
        public_key: the raw 32-byte Ed25519 public key.
        valid_from: ISO 8601 UTC from when it signs ("" unknown; informational).
        valid_until: ISO 8601 UTC when it was retired ("" while current): a statement
            signed later does not verify with it (a leaked retired key forges nothing new).
        current: the key the service signs with now.
    """

    key_id: str
    public_key: bytes
    valid_from: str = ""
    valid_until: str = ""
    current: bool = False

    def to_json(self) -> dict[str, Any]:
        """The key as an entry of the keys document."""
        return {
            "key_id": self.key_id,
            "algorithm": ALGORITHM,
            "public_key": base64.b64encode(self.public_key).decode("ascii"),
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "current": self.current,
        }

    @classmethod
    def from_json(cls, data: Any) -> PublicKey:
        """An entry of a keys document. Raises SigningKeyError for a malformed entry, an
        algorithm other than ed25519, or a ``key_id`` that is not its key's id."""
        try:
            if data.get("algorithm", ALGORITHM) != ALGORITHM:
                raise SigningKeyError(f"algorithm {data.get('algorithm')!r} is not {ALGORITHM}")
            raw = base64.b64decode(str(data["public_key"]), validate=True)
            Ed25519PublicKey.from_public_bytes(raw)
            entry = cls(
                str(data["key_id"]),
                raw,
                str(data.get("valid_from", "")),
                str(data.get("valid_until", "")),
                bool(data.get("current", False)),
            )
        except (AttributeError, KeyError, TypeError, ValueError, binascii.Error) as exc:
            if isinstance(exc, SigningKeyError):
                raise
            raise SigningKeyError(f"malformed signing key entry: {exc}") from exc
        if entry.key_id != key_id(raw):
            raise SigningKeyError(f"key_id {entry.key_id!r} is not the id of its public key")
        return entry


@dataclass(frozen=True, slots=True)
class HeadStatement:
    """What a signed head says (see the module docstring)."""

    game_id: str
    ruleset: str
    version: int
    head_hash: str
    finished: bool
    key_id: str
    signed_at: str

    def to_json(self) -> dict[str, Any]:
        """The statement's object (its canonical JSON is what gets signed)."""
        return {
            "format": STATEMENT_FORMAT,
            "format_version": STATEMENT_VERSION,
            "game_id": self.game_id,
            "ruleset": self.ruleset,
            "version": self.version,
            "head_hash": self.head_hash,
            "finished": self.finished,
            "key_id": self.key_id,
            "signed_at": self.signed_at,
        }

    @classmethod
    def parse(cls, text: str) -> HeadStatement:
        """A statement from its JSON text. Raises SignatureError if it is not one."""
        try:
            data = json.loads(text)
            if data.get("format") != STATEMENT_FORMAT:
                raise SignatureError(f"the signed statement is not a {STATEMENT_FORMAT}")
            if data.get("format_version") != STATEMENT_VERSION:
                raise SignatureError(
                    f"{STATEMENT_FORMAT} format_version {data.get('format_version')!r} is "
                    f"not one this teoti reads ({STATEMENT_VERSION})"
                )
            finished = data["finished"]
            version = data["version"]
            if not isinstance(finished, bool) or not isinstance(version, int):
                raise SignatureError("the signed statement's version or finished is malformed")
            return cls(
                str(data["game_id"]),
                str(data["ruleset"]),
                version,
                str(data["head_hash"]),
                finished,
                str(data["key_id"]),
                str(data["signed_at"]),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, SignatureError):
                raise
            raise SignatureError(f"the signed statement is malformed: {exc}") from exc


@dataclass(frozen=True, slots=True)
class SignedHead:
    """A statement and its signature, as GetSignedHead returns it and an export's header
    carries it (``{"statement", "signature", "key_id"}``)."""

    statement: str
    """The statement's canonical JSON, exactly the signed text."""
    signature: str
    """Ed25519 signature of ``statement``'s UTF-8 bytes, base64."""
    key_id: str

    def to_json(self) -> dict[str, str]:
        """As an entry of an export header's ``signatures``."""
        return {"statement": self.statement, "signature": self.signature, "key_id": self.key_id}

    @classmethod
    def from_json(cls, data: Any) -> SignedHead:
        """An entry of an export header's ``signatures``. Raises SignatureError."""
        try:
            return cls(str(data["statement"]), str(data["signature"]), str(data["key_id"]))
        except (KeyError, TypeError) as exc:
            raise SignatureError(f"malformed signature entry: {exc!r}") from exc


class HeadSigner:
    """Signs heads with one Ed25519 private key (never logged, never sent anywhere).

    Args:
        private_key: the key.
        valid_from: when it started signing (ISO 8601 UTC; "" unknown).
    """

    def __init__(self, private_key: Ed25519PrivateKey, valid_from: str = "") -> None:
        self._key = private_key
        raw = _raw(private_key.public_key())
        self.public = PublicKey(key_id(raw), raw, valid_from, "", True)

    def __repr__(self) -> str:
        return f"HeadSigner(key_id={self.key_id})"

    @property
    def key_id(self) -> str:
        """The id of this signer's public key."""
        return self.public.key_id

    @classmethod
    def generate(cls) -> HeadSigner:
        """A signer with a fresh key held in memory only (tests, embedded servers)."""
        return cls(Ed25519PrivateKey.generate(), _now())

    @classmethod
    def from_pem(cls, pem: bytes, valid_from: str = "", source: str = "") -> HeadSigner:
        """The signer of a PEM (PKCS#8, unencrypted) private key; ``source`` names where
        it came from in errors (a key file: :mod:`services.engine.adapters.key_files`).
        Raises SigningKeyError (not a PEM private key, not Ed25519)."""
        try:
            key = serialization.load_pem_private_key(pem, password=None)
        except (ValueError, TypeError) as exc:
            raise SigningKeyError(f"cannot read the signing key {source}: {exc}") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise SigningKeyError(f"the signing key {source} is not an Ed25519 private key")
        return cls(key, valid_from)

    def sign(
        self,
        game_id: str,
        ruleset: str,
        version: int,
        head_hash: str,
        finished: bool,
        signed_at: str | None = None,
    ) -> SignedHead:
        """Sign the statement of this head (``signed_at`` default: now). About 50 us."""
        statement = HeadStatement(
            game_id, ruleset, version, head_hash, finished, self.key_id, signed_at or _now()
        )
        text = canonical_json(statement.to_json())
        signature = self._key.sign(text.encode("utf-8"))
        return SignedHead(text, base64.b64encode(signature).decode("ascii"), self.key_id)


class SigningKeys:
    """The public keys a service publishes: its signer's (current) and retired ones.

    Args:
        signer: the current signer (None: this process signs nothing).
        retired: keys signed with before; a retired entry with the current key's id is
            dropped (the current key is listed once, as current).
    """

    def __init__(self, signer: HeadSigner | None, retired: Iterable[PublicKey] = ()) -> None:
        self.signer = signer
        current = signer.key_id if signer else ""
        self.retired = tuple(
            PublicKey(k.key_id, k.public_key, k.valid_from, k.valid_until, False)
            for k in retired
            if k.key_id != current
        )

    def published(self) -> tuple[PublicKey, ...]:
        """Every published key, the current one first."""
        return ((self.signer.public,) if self.signer else ()) + self.retired

    def document(self) -> dict[str, Any]:
        """The well-known file's object: ``{"keys": [entry, ...]}``."""
        return {"keys": [k.to_json() for k in self.published()]}


def parse_keys_document(data: Any) -> list[PublicKey]:
    """The keys of a keys document (``{"keys": [...]}``). Raises SigningKeyError."""
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise SigningKeyError('not a signing keys document (no "keys" list)')
    return [PublicKey.from_json(entry) for entry in data["keys"]]


def parse_public_keys(data: bytes, source: str) -> list[PublicKey]:
    """The public keys in a file's bytes: a keys document (the well-known file, or a
    retired keys file), or one PEM public key (``SubjectPublicKeyInfo``); ``source``
    names the file in errors (read by :mod:`services.engine.adapters.key_files`).
    Raises SigningKeyError."""
    if data.lstrip().startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(data)
        except ValueError as exc:
            raise SigningKeyError(f"{source}: not a PEM public key ({exc})") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise SigningKeyError(f"{source}: not an Ed25519 public key")
        raw = _raw(key)
        return [PublicKey(key_id(raw), raw)]
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SigningKeyError(f"{source}: neither a PEM public key nor a keys document") from exc
    try:
        return parse_keys_document(document)
    except SigningKeyError as exc:
        raise SigningKeyError(f"{source}: {exc}") from exc


def public_pem(key: PublicKey) -> str:
    """``key`` as a PEM public key (``SubjectPublicKeyInfo``), for ``--public-key``."""
    return (
        Ed25519PublicKey.from_public_bytes(key.public_key)
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode("ascii")
    )


def verify_signed_head(signed: SignedHead, keys: Sequence[PublicKey]) -> HeadStatement:
    """Check ``signed`` against the known ``keys``; returns its statement.

    Raises SignatureError naming what failed: an unknown key id, a signature that does
    not verify (any byte of the statement changed), a statement naming another key than
    the one that signed, or one signed after its key's ``valid_until``.
    """
    known: Mapping[str, PublicKey] = {k.key_id: k for k in keys}
    key = known.get(signed.key_id)
    if key is None:
        have = ", ".join(sorted(known)) or "none"
        raise SignatureError(f"signed by unknown key {signed.key_id} (known keys: {have})")
    try:
        signature = base64.b64decode(signed.signature, validate=True)
        Ed25519PublicKey.from_public_bytes(key.public_key).verify(
            signature, signed.statement.encode("utf-8")
        )
    except (InvalidSignature, binascii.Error, ValueError) as exc:
        raise SignatureError(
            f"the signature of key {signed.key_id} does not verify: the signed statement "
            "was altered or not signed by that key"
        ) from exc
    statement = HeadStatement.parse(signed.statement)
    if statement.key_id != signed.key_id:
        raise SignatureError(
            f"the statement names key {statement.key_id}, the signature is key {signed.key_id}'s"
        )
    if key.valid_until:
        try:
            late = _instant(statement.signed_at) > _instant(key.valid_until)
        except ValueError as exc:
            raise SignatureError(f"unreadable signing time: {exc}") from exc
        if late:
            raise SignatureError(
                f"signed at {statement.signed_at}, after key {key.key_id} was retired "
                f"({key.valid_until})"
            )
    return statement
