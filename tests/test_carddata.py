"""Card facts the players enter: stored in the data directory, checked, exported and imported exactly."""

from __future__ import annotations

import json

import pytest

from companion.carddata import CardData
from companion.errors import ConfigError, SetupError
from companion.games import fable


def test_the_shipped_table_knows_only_what_the_rulebooks_say(data_dir):
    cards = CardData(data_dir, "fable")
    merged = cards.merged()
    assert len(merged) == 59 and sum(e["copies"] for e in merged.values()) == 240
    assert merged["59"]["copies"] == 8
    assert merged["1"]["rule"] == "draw2" and merged["1"]["price"] is None
    assert merged["3"]["price"] == {"fruits": {"grapes": 3}, "smoothies": 1}
    assert merged["2"]["signpost"] is True
    assert merged["7"]["price"] is None and merged["7"]["action"] == "unknown"
    assert merged["7"]["missing"] == ["name", "price", "action", "signpost", "components"]
    assert cards.unverified() == [str(n) for n in range(1, 60)]  # no card is complete from the rulebooks alone
    assert cards.overrides() == {}
    assert set(json.loads(cards.options()["locations"])["pinned"]) == {"1", "2", "3", "4", "5", "6"}


def test_entered_facts_are_stored_in_the_data_directory_and_reach_a_new_game(data_dir):
    cards = CardData(data_dir, "fable")
    entry = cards.set_text("7", {"price": "2 pineapples + 4 smoothies", "signpost": "no", "components": "thief",
                                 "name": "Pineapple Palace", "action": "Give 2 pineapples, receive 5 fruits."})
    assert entry["verified"] and entry["price_text"] == "2 pineapples + 4 smoothies"
    assert entry["sources"]["price"] == "entered by the players"
    # A new CardData (the next start of the companion) reads the same facts from the file.
    again = CardData(data_dir, "fable")
    assert again.overrides() == {"7": {
        "action": "Give 2 pineapples, receive 5 fruits.", "components": ["thief"], "name": "Pineapple Palace",
        "price": {"fruits": {"pineapple": 2}, "smoothies": 4}, "signpost": False,
    }}
    assert (data_dir / "cards" / "fable.json").is_file()
    state = fable.setup(["Anne", "Paul"], again.options())
    assert state.table[7].price.to_text() == "2 pineapples + 4 smoothies"
    assert state.table[7].components == ("thief",)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"price": "3 kiwis"}, "kiwi is not a fruit of the box"),
        ({"price": "3"}, "3 of what"),
        ({"signpost": "maybe"}, "write yes or no"),
        ({"components": "dragon"}, "'dragon' is not a component"),
        ({"rule": "fly"}, "not an action the companion implements"),
        ({"copies": "5"}, "'copies' is not a fact"),
    ],
)
def test_bad_facts_are_refused_with_the_reason_and_nothing_is_written(data_dir, fields, reason):
    cards = CardData(data_dir, "fable")
    with pytest.raises(SetupError, match=reason):
        cards.set_text("12", fields)
    assert cards.overrides() == {}


def test_a_location_the_box_does_not_have_is_refused(data_dir):
    with pytest.raises(SetupError, match="no location 60"):
        CardData(data_dir, "fable").set_text("60", {"name": "Nowhere"})


def test_a_game_keeps_the_facts_it_started_with_whatever_a_later_version_ships(data_dir, monkeypatch):
    from companion.games.fable import cards as shipped_cards
    from companion.games.fable import rules

    cards = CardData(data_dir, "fable")
    cards.set_text("7", {"price": "6 smoothies"})
    options = cards.options()
    assert json.loads(options["locations"])["pinned"]["3"]["price"] == {"fruits": {"grapes": 3}, "smoothies": 1}
    before = fable.setup(["Anne", "Paul"], options)
    # A later version ships a price for location 5 and a different one for location 3.
    newer = shipped_cards.default_entries()
    newer["5"]["price"] = {"fruits": {}, "smoothies": 4}
    newer["3"]["price"] = {"fruits": {}, "smoothies": 9}
    monkeypatch.setattr(shipped_cards, "default_entries", lambda: {k: dict(v) for k, v in newer.items()})
    rules._table.cache_clear()
    try:
        after = fable.setup(["Anne", "Paul"], options)
        assert after.table == before.table
        assert after.table[5].price is None and after.table[3].price.total == 4 and after.table[7].price.total == 6
        assert fable.setup(["Anne", "Paul"]).table[5].price.total == 4  # a new game gets the new facts
    finally:
        rules._table.cache_clear()


def test_clearing_brings_back_the_shipped_fact(data_dir):
    cards = CardData(data_dir, "fable")
    cards.set_text("3", {"price": "4 smoothies", "name": "Grape Grove"})
    assert cards.entry("3")["price_text"] == "4 smoothies"
    assert cards.clear("3", ["price"])["price_text"] == "3 grapes + 1 smoothie"
    assert cards.overrides() == {"3": {"name": "Grape Grove"}}
    cards.clear("3")
    assert cards.overrides() == {}


def test_export_and_import_round_trip_exactly(data_dir, tmp_path):
    source = CardData(data_dir, "fable")
    source.set_text("7", {"price": "6 smoothies"})
    source.set_text("12", {"components": "wild tokens, thief", "signpost": "yes"})
    document = json.loads(json.dumps(source.export()))
    other = CardData(tmp_path / "other", "fable")
    other.set_text("7", {"name": "kept"})
    other.import_(document)
    assert other.overrides()["7"] == {"name": "kept", "price": {"fruits": {}, "smoothies": 6}}
    other.import_(document, replace=True)
    assert other.export() == document


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.update(format="something else"), "not a card-facts export"),
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d.update(game="fandooble"), "for 'fandooble', not fable"),
        (lambda d: d["entries"]["7"].update(price={"fruits": {"kiwi": 1}}), "kiwi"),
        (lambda d: d["entries"].update({"99": {"name": "x"}}), "no location 99"),
        (lambda d: d.update(extra=1), "unexpected field extra"),
    ],
)
def test_a_bad_import_is_refused_and_changes_nothing(data_dir, change, reason):
    cards = CardData(data_dir, "fable")
    cards.set_text("7", {"price": "6 smoothies"})
    document = cards.export()
    change(document)
    cards.set_text("8", {"name": "before"})
    before = cards.overrides()
    with pytest.raises(SetupError, match=reason):
        cards.import_(document)
    assert cards.overrides() == before


def test_a_damaged_file_is_reported_with_its_name(data_dir):
    cards = CardData(data_dir, "fable")
    cards.set_text("7", {"name": "x"})
    cards.path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="fable.json: the card facts are damaged"):
        cards.overrides()


def test_a_game_without_a_card_table_says_so(data_dir):
    with pytest.raises(SetupError, match="no card table"):
        CardData(data_dir, "fandooble")
