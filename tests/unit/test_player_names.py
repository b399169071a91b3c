"""Player names (issue 32): one identity per name however it is spelt (NFKC, trimmed,
case-folded), the display form kept, bounded and printable; credentials' form."""

from __future__ import annotations

import string
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.players.credentials import (
    PREFIX,
    check_client_credential,
    credential_hash,
    is_player_credential,
    new_credential,
)
from services.players.errors import InvalidPlayer
from services.players.names import MAX_NAME_LENGTH, display_name, name_key
from services.tournament import aggregate, repository

names = st.text(min_size=0, max_size=80)


@given(names)
def test_the_identity_is_a_fixed_point(name: str) -> None:
    key = name_key(name)
    assert name_key(key) == key
    assert unicodedata.is_normalized("NFKC", key)
    assert key == key.strip()


@given(names, st.sampled_from([" ", "\t", "  ", "\u3000"]))
def test_surrounding_space_does_not_change_the_identity(name: str, space: str) -> None:
    assert name_key(space + name + space) == name_key(name)


@given(st.text(alphabet=string.ascii_letters + " -_.0123456789"))
def test_case_does_not_change_the_identity(name: str) -> None:
    assert name_key(name.upper()) == name_key(name.lower()) == name_key(name)


@given(st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1))
def test_full_width_ascii_is_its_plain_letters(name: str) -> None:
    # Full-width forms U+FF01..U+FF5E are NFKC-equal to ASCII 0x21..0x7E.
    wide = "".join(chr(ord(ch) - 0x21 + 0xFF01) for ch in name)
    assert name_key(wide) == name_key(name)


def test_known_spellings_of_one_name() -> None:
    assert name_key("Ann ") == name_key("ann") == name_key("\uff21\uff2e\uff2e")
    assert name_key("Straße") == name_key("STRASSE")
    assert name_key("ﬁona") == name_key("Fiona")
    assert name_key("ann") != name_key("anne")


def test_one_rule_for_accounts_and_tournaments() -> None:
    assert aggregate.name_key is name_key
    assert repository.name_key is name_key


@given(st.text(min_size=1, max_size=MAX_NAME_LENGTH).filter(lambda s: s.strip() == s))
def test_a_display_name_is_kept_as_given_or_refused_by_its_rule(name: str) -> None:
    try:
        shown = display_name(name)
    except InvalidPlayer as refused:
        assert refused.rule == "player_name"
        assert not name.isprintable() or not name_key(name) or name_key(name).startswith("bot:")
    else:
        assert shown == name


@pytest.mark.parametrize(
    "name", ["", "   ", "a" * (MAX_NAME_LENGTH + 1), "ann\x1b[2J", "ann\nbob", "bot:ann", "BOT:x"]
)
def test_bad_names_are_refused_naming_the_rule(name: str) -> None:
    with pytest.raises(InvalidPlayer) as refused:
        display_name(name)
    assert refused.value.rule == "player_name"


def test_display_is_trimmed() -> None:
    assert display_name("  Ann  ") == "Ann"


def test_server_made_credentials_are_prefixed_and_256_bit() -> None:
    made = {new_credential() for _ in range(100)}
    assert len(made) == 100
    for credential in made:
        assert is_player_credential(credential)
        assert check_client_credential(credential) == credential
        assert len(credential) - len(PREFIX) >= 43  # 43 URL-safe characters: 258 bits
        assert len(credential_hash(credential)) == 64


@pytest.mark.parametrize(
    "credential", ["", "tpc_short", "abc_" + "a" * 43, PREFIX + "a" * 42, PREFIX + "a b" * 30]
)
def test_weak_client_chosen_credentials_are_refused(credential: str) -> None:
    with pytest.raises(InvalidPlayer) as refused:
        check_client_credential(credential)
    assert refused.value.rule == "player_credential_strength"
