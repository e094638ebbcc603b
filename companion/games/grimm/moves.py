"""The Grimm Forest's moves and their one-line text form. Every player's move names its player.

Locations are ``fields forest brickyard market`` (``quarry`` is read as the Brickyard, its
name in the rulebook); resources ``straw wood brick``; Friends by their card name written
with hyphens (``fairy-godmother``; a name the companion does not know is recorded as it is).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from companion.errors import InvalidMove

from .state import PARTS, RESOURCES, data, location_ids


def _location(word: str) -> str:
    w = word.lower()
    for loc, facts in data()["locations"].items():
        if w == loc or w in facts.get("aliases", ()):
            return loc
    raise InvalidMove(f"'{word}' is not a location: say {', '.join(location_ids())}")


def _resource(word: str) -> str:
    w = word.lower()
    if w not in RESOURCES:
        raise InvalidMove(f"'{word}' is not a resource: say straw, wood or brick")
    return w


def _friend(word: str) -> str:
    return word.lower()


@dataclass(frozen=True)
class Prince:
    """Two players, start of the round: the Prince Regal's die (or the fullest location, above 10)."""

    resource: str
    player = None

    def to_text(self) -> str:
        return f"prince {self.resource}"


@dataclass(frozen=True)
class Gather:
    """The secret collection card, with a Fable laid face down on it or not."""

    player: str
    location: str
    fable: bool = False

    def to_text(self) -> str:
        # The Fable before the location: no pick's text is part of another's (the leak checker searches texts).
        return f"gather {self.player} {'fable ' if self.fable else ''}{self.location}"


@dataclass(frozen=True)
class Fable:
    """A revealed Fable resolved: a monster placed on a location, or another card recorded as entered."""

    player: str
    location: str | None = None  # a monster's location
    text: str = ""  # the card and what it did, in the player's words, for any other Fable

    def to_text(self) -> str:
        if self.location:
            return f"fable {self.player} monster {self.location}" + (f" {self.text}" if self.text else "")
        return f"fable {self.player} other {self.text}".rstrip()


@dataclass(frozen=True)
class FriendUse:
    """A Friend's timing window: Cinderella takes (``take wood wood``) or not (``pass``); the Frog
    Prince, not alone at the end of Gather, is swapped (``frog NEWFRIEND gain wood``)."""

    player: str
    kind: str  # take, pass, frog
    resources: tuple[str, ...] = ()
    friend: str | None = None

    def to_text(self) -> str:
        if self.kind == "take":
            return f"friend {self.player} take {' '.join(self.resources)}"
        if self.kind == "frog":
            return f"friend {self.player} frog {self.friend} gain {self.resources[0]}"
        return f"friend {self.player} pass"


@dataclass(frozen=True)
class Draft:
    """One token taken from a shared Market, in turn order."""

    player: str
    resource: str

    def to_text(self) -> str:
        return f"draft {self.player} {self.resource}"


@dataclass(frozen=True)
class Draw:
    """Construction action: draw a Fable card."""

    player: str

    def to_text(self) -> str:
        return f"draw {self.player} fable"


@dataclass(frozen=True)
class Gain:
    """Construction action: one resource from the supply."""

    player: str
    resource: str

    def to_text(self) -> str:
        return f"gain {self.player} {self.resource}"


@dataclass(frozen=True)
class FriendGot:
    """A Friend card drawn, and who keeps it (the drawer, or another player who cannot refuse)."""

    friend: str
    to: str | None = None

    def to_text(self) -> str:
        return f"friend {self.friend}" + (f" to {self.to}" if self.to else "")


@dataclass(frozen=True)
class Build:
    """Construction action: a house section. Walls draw a Friend; a first roof of a type takes the
    First Builder token and its reward (``resources``, ``fables`` or a Friend)."""

    player: str
    part: str
    kind: str  # the house's resource
    friend: FriendGot | None = None  # the Friend drawn for walls, or taken as the reward
    reward: str | None = None  # resources, fables, friend

    def to_text(self) -> str:
        text = f"build {self.player} {self.part} {self.kind}"
        if self.reward:
            text += f" reward {self.reward}" + (f" {self.friend.friend}" + (f" to {self.friend.to}" if self.friend.to else "")
                                               if self.reward == "friend" and self.friend else "")
        elif self.friend:
            text += f" {self.friend.to_text()}"
        return text


@dataclass(frozen=True)
class Special:
    """Construction action: the held Friend's special action (once a turn). The Fairy Godmother's
    ``fables`` or ``resources wood brick``; any other Friend's is recorded as entered (``other ...``)."""

    player: str
    kind: str  # fables, resources, other
    resources: tuple[str, ...] = ()
    text: str = ""

    def to_text(self) -> str:
        if self.kind == "resources":
            return f"special {self.player} resources {' '.join(self.resources)}"
        if self.kind == "other":
            return f"special {self.player} other {self.text}".rstrip()
        return f"special {self.player} fables"


@dataclass(frozen=True)
class Cleanup:
    """The table's cleanup: the mega-resource token laid on each location (values read from the tokens)."""

    values: tuple[int, ...]  # fields, forest, brickyard
    player = None

    def to_text(self) -> str:
        return "cleanup " + " ".join(f"{loc} {v}" for loc, v in zip(("fields", "forest", "brickyard"), self.values))


Move = Union[Prince, Gather, Fable, FriendUse, Draft, Draw, Gain, Build, Special, Cleanup]

USAGE = ("moves: prince RESOURCE · gather NAME [fable] LOCATION · fable NAME monster LOCATION | other TEXT · "
         "friend NAME take R R | pass | frog NEWFRIEND gain R · draft NAME R · draw NAME fable · gain NAME R · "
         "build NAME floor|walls|roof R [friend F [to NAME]] [reward resources|fables|friend F [to NAME]] · "
         "special NAME fables | resources R R | other TEXT · cleanup fields N forest N brickyard N")


def _friend_got(words: list[str], text: str) -> FriendGot:
    if not words:
        raise InvalidMove(f"'{text}': name the Friend card drawn")
    if len(words) == 1:
        return FriendGot(_friend(words[0]))
    if len(words) == 3 and words[1] == "to":
        return FriendGot(_friend(words[0]), words[2])
    raise InvalidMove(f"'{text}': write the Friend as 'friend NAME' or 'friend NAME to PLAYER'")


def parse_move(text: str) -> Move:
    words = text.split()
    if not words:
        raise InvalidMove(f"an empty move: {USAGE}")
    verb, rest = words[0].lower(), words[1:]
    try:
        if verb == "prince" and len(rest) == 1:
            return Prince(_resource(rest[0]))
        if verb == "cleanup":
            values = dict(zip(rest[0::2], rest[1::2]))
            if len(rest) != 6 or set(values) != {"fields", "forest", "brickyard"}:
                raise InvalidMove(f"'{text}': write 'cleanup fields N forest N brickyard N'")
            return Cleanup(tuple(int(values[k]) for k in ("fields", "forest", "brickyard")))
        if not rest:
            raise InvalidMove(f"'{text}': name the player")
        who, args = rest[0], rest[1:]
        if verb == "gather" and len(args) in (1, 2):
            fable = [a for a in args if a.lower() == "fable"]
            places = [a for a in args if a.lower() != "fable"]
            if len(places) != 1 or len(fable) != len(args) - 1:
                raise InvalidMove(f"'{text}': write 'gather NAME LOCATION' or 'gather NAME fable LOCATION'")
            return Gather(who, _location(places[0]), bool(fable))
        if verb == "fable" and args:
            if args[0] == "monster" and len(args) >= 2:
                return Fable(who, _location(args[1]), " ".join(args[2:]))
            if args[0] == "other":
                return Fable(who, None, " ".join(args[1:]))
        if verb == "friend" and args:
            if args[0] == "pass" and len(args) == 1:
                return FriendUse(who, "pass")
            if args[0] == "take" and 1 <= len(args) <= 3:
                return FriendUse(who, "take", tuple(_resource(r) for r in args[1:]))
            if args[0] == "frog" and len(args) == 4 and args[2] == "gain":
                return FriendUse(who, "frog", (_resource(args[3]),), _friend(args[1]))
        if verb == "draft" and len(args) == 1:
            return Draft(who, _resource(args[0]))
        if verb == "draw" and args == ["fable"]:
            return Draw(who)
        if verb == "gain" and len(args) == 1:
            return Gain(who, _resource(args[0]))
        if verb == "build" and len(args) >= 2:
            part, kind, extra = args[0].lower(), _resource(args[1]), args[2:]
            if part not in PARTS:
                raise InvalidMove(f"'{text}': build a floor, walls or roof")
            if not extra:
                return Build(who, part, kind)
            if extra[0] == "friend":
                return Build(who, part, kind, _friend_got(extra[1:], text))
            if extra[0] == "reward" and len(extra) >= 2:
                reward = extra[1]
                if reward == "friend":
                    return Build(who, part, kind, _friend_got(extra[2:], text), "friend")
                if reward in ("resources", "fables") and len(extra) == 2:
                    return Build(who, part, kind, None, reward)
                raise InvalidMove(f"'{text}': the reward is 'resources', 'fables' or 'friend NAME'")
        if verb == "special" and args:
            if args[0] == "fables" and len(args) == 1:
                return Special(who, "fables")
            if args[0] == "resources" and len(args) == 3:
                return Special(who, "resources", tuple(_resource(r) for r in args[1:]))
            if args[0] == "other":
                return Special(who, "other", text=" ".join(args[1:]))
    except ValueError as err:
        if isinstance(err, InvalidMove):
            raise
        raise InvalidMove(f"'{text}': {err}") from None
    raise InvalidMove(f"'{text}' is not a Grimm Forest move; {USAGE}")
