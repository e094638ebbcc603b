"""Export a campaign with all its games as JSON, and import it back exactly.

The document holds the campaign's events and every game's setup and events (the
log's own rows), with a SHA-256 over them. Importing checks the checksum, the shape,
that nothing in it is already in this log, and that the whole campaign replays (in a
scratch log first) before a single row is written: a bad or changed file is refused
with the reason and changes nothing. Exporting an imported campaign gives the same
document, byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from companion.errors import CompanionError, SetupError
from companion.eventlog import SOURCES, EventLog

from .model import GAME, STARTED, derive, game_state
from .store import Campaign, check_group, on_table

FORMAT = "table-companion/fable-campaign"
VERSION = 1
EVENT_FIELDS = {"event_id": str, "seq": int, "time": (int, float), "source": str, "kind": str, "text": str, "payload": dict}


def export_campaign(campaign: Campaign) -> dict:
    """The campaign and its games as a JSON-ready document."""
    log = campaign.log
    record = campaign.record
    events = log.events(record.session_id)
    games = []
    for event in events:
        if event.kind == STARTED:
            game = log.session(event.payload["session_id"])
            games.append({
                "session_id": game.session_id,
                "title": game.title,
                "setup": game.setup,
                "events": [_event(e) for e in log.events(game.session_id)],
            })
    document = {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {"session_id": record.session_id, "title": record.title, "setup": record.setup},
        "events": [_event(e) for e in events],
        "games": games,
    }
    document["sha256"] = checksum(document)
    return document


def _event(event) -> dict:
    data = event.to_json()
    return {key: data[key] for key in EVENT_FIELDS}


def checksum(document: dict) -> str:
    body = {k: v for k, v in document.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def import_campaign(log: EventLog, document: Any) -> Campaign:
    """Store an exported campaign in ``log``; SetupError with the reason when the document is refused."""
    _check_shape(document)
    if document["sha256"] != checksum(document):
        raise SetupError("the file was changed after it was exported (its checksum does not match)")
    ids = [document["campaign"]["session_id"]] + [g["session_id"] for g in document["games"]]
    for session_id in ids:
        try:
            log.session(session_id)
        except CompanionError:
            continue
        raise SetupError(f"this companion already holds session {session_id}: the campaign is already here")
    for event in _all_events(document):
        if log.has_event(event["event_id"]):
            raise SetupError(f"this companion already holds event {event['event_id']}")
    with EventLog(":memory:") as scratch:
        try:
            _write(scratch, document)
            state = derive(scratch, scratch.session(document["campaign"]["session_id"]))
            for game in document["games"]:
                game_state(scratch, scratch.session(game["session_id"]))
        except CompanionError as exc:
            raise SetupError(f"the campaign in the file does not replay: {exc}") from None
    busy = on_table(log)
    if state.on_table and busy is not None:
        raise SetupError(
            f"the imported campaign's cards are on its table, and '{busy.title}' is on this one: park it first"
        )
    _write(log, document)
    return Campaign(log, document["campaign"]["session_id"])


def _all_events(document: dict):
    yield from document["events"]
    for game in document["games"]:
        yield from game["events"]


def _write(log: EventLog, document: dict) -> None:
    with log.batch():  # all of the campaign or nothing, even if the disk fails halfway
        _write_rows(log, document)


def _write_rows(log: EventLog, document: dict) -> None:
    campaign = document["campaign"]
    log.create_session(GAME, campaign["setup"], kind="campaign", title=campaign["title"], session_id=campaign["session_id"])
    for game in document["games"]:
        log.create_session(
            GAME, game["setup"], kind="game", parent_id=campaign["session_id"], title=game["title"],
            session_id=game["session_id"],
        )
        _append_all(log, game["session_id"], game["events"])
    _append_all(log, campaign["session_id"], document["events"])


def _append_all(log: EventLog, session_id: str, events: list[dict]) -> None:
    for event in events:
        stored = log.append(
            session_id, event["kind"], event["text"], source=event["source"], payload=event["payload"],
            event_id=event["event_id"], at=event["time"],
        )
        if stored.seq != event["seq"]:
            raise SetupError(f"event {event['event_id']} is out of order (sequence {event['seq']})")


def _check_shape(document: Any) -> None:
    if not isinstance(document, dict):
        raise SetupError("not a campaign export: expected a JSON object")
    if document.get("format") != FORMAT:
        raise SetupError(f"not a campaign export (format should be '{FORMAT}')")
    if document.get("version") != VERSION:
        raise SetupError(f"campaign export version {document.get('version')!r}: this companion reads version {VERSION}")
    expected = {"format", "version", "campaign", "events", "games", "sha256"}
    if set(document) != expected:
        raise SetupError(f"campaign export: expected the fields {', '.join(sorted(expected))}")
    if not isinstance(document["sha256"], str):
        raise SetupError("campaign export: the checksum is missing")
    campaign = document["campaign"]
    if not isinstance(campaign, dict) or set(campaign) != {"session_id", "title", "setup"}:
        raise SetupError("campaign export: 'campaign' needs session_id, title and setup")
    if not isinstance(campaign["session_id"], str) or not isinstance(campaign["title"], str):
        raise SetupError("campaign export: the campaign's id and title are text")
    setup = campaign["setup"]
    if not isinstance(setup, dict) or not isinstance(setup.get("group"), list) \
            or not all(isinstance(name, str) for name in setup["group"]):
        raise SetupError("campaign export: the campaign's setup names its group")
    try:  # the same checks as a campaign started here
        if list(check_group(setup["group"])) != setup["group"]:
            raise SetupError("the names are not written as this companion writes them")
    except SetupError as exc:
        raise SetupError(f"campaign export: the campaign's group is refused: {exc}") from None
    _check_text(campaign["title"], "the campaign's title")
    _check_events(document["events"], "the campaign")
    if not isinstance(document["games"], list):
        raise SetupError("campaign export: 'games' is a list")
    for game in document["games"]:
        if not isinstance(game, dict) or set(game) != {"session_id", "title", "setup", "events"}:
            raise SetupError("campaign export: each game needs session_id, title, setup and events")
        if not isinstance(game["session_id"], str) or not isinstance(game["title"], str):
            raise SetupError("campaign export: a game's id and title are text")
        _check_text(game["title"], f"the title of game {game['session_id'][:40]}")
        setup = game["setup"]
        if not isinstance(setup, dict) or not isinstance(setup.get("players"), list) or not isinstance(setup.get("options"), dict):
            raise SetupError(f"campaign export: game {game.get('session_id')} needs players and options")
        _check_events(game["events"], f"game {game['session_id']}")


def _check_text(text: str, what: str) -> None:
    if len(text) > 200 or not text.isprintable():
        raise SetupError(f"campaign export: {what} is not one short line of text")


def _check_events(events: Any, owner: str) -> None:
    if not isinstance(events, list):
        raise SetupError(f"campaign export: the events of {owner} are a list")
    for i, event in enumerate(events, start=1):
        if not isinstance(event, dict) or set(event) != set(EVENT_FIELDS):
            raise SetupError(f"campaign export: event {i} of {owner} needs {', '.join(EVENT_FIELDS)}")
        for key, kind in EVENT_FIELDS.items():
            if not isinstance(event[key], kind) or isinstance(event[key], bool):
                raise SetupError(f"campaign export: event {i} of {owner} has a bad {key}")
        if not math.isfinite(event["time"]) or not 0 <= event["time"] < 1e11:
            raise SetupError(f"campaign export: event {i} of {owner} has an impossible time")
        if event["seq"] != i:
            raise SetupError(f"campaign export: the events of {owner} are not numbered 1, 2, 3 ... (event {i})")
        if event["source"] not in SOURCES:
            raise SetupError(f"campaign export: event {i} of {owner} has an unknown source {event['source']!r}")
