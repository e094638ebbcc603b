"""The Fabled Fruit legacy campaign: a group's deck, display, bag, games and scores, kept in the event log.

A campaign is replayed from the log every time it is loaded (never stored as a
mutable snapshot). The dashboard and the referee use:

* :meth:`Campaign.new` / :meth:`Campaign.find` / :func:`list_campaigns` / :func:`on_table`
* :meth:`Campaign.start_game` (returns the game's :class:`~companion.session.Session`),
  :meth:`Campaign.watch` (records the end as soon as a move ends the game),
  :meth:`Campaign.finish_game`, :meth:`Campaign.abandon_game`
* :meth:`Campaign.park`, :meth:`Campaign.resume`, :meth:`Campaign.reset`, each returning
  :class:`Instructions` for the players
* :meth:`Campaign.to_json`, :meth:`Campaign.summary`
* :func:`export_campaign` / :func:`import_campaign`
"""

from .guide import Instructions
from .model import CampaignState, GameRecord
from .store import Campaign, box_state, list_campaigns, on_table
from .transfer import export_campaign, import_campaign

__all__ = [
    "Campaign", "CampaignState", "GameRecord", "Instructions", "list_campaigns", "on_table", "box_state",
    "export_campaign", "import_campaign",
]
