"""The taught dice's files on a real Pi: taught with sudo from a terminal, read by the service as its own user, on a
card that fills up or fails. Only damage moves them aside; every other fault says what to do and changes nothing."""

from __future__ import annotations

import errno
import json
import os
import pwd
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

from companion import files
from companion.dicestore import DiceStore
from companion.errors import ConfigError
from companion.faults import FAULTS
from tests.test_startup_faults import _as_user, fingerprint
from vision.dice.faces import DESCRIPTOR, PAD, FaceTemplates


def taught(*dice: str) -> FaceTemplates:
    """Templates of ``dice``, each with six faces A-F taught once (the store keeps whatever it is given)."""
    rng = np.random.default_rng(len(dice))
    templates = FaceTemplates()
    for die in dice:
        for face in "ABCDEF":
            templates.add(die, face, rng.random((DESCRIPTOR + 2 * PAD, DESCRIPTOR + 2 * PAD, 3)).astype(np.float32))
        templates.dice[die] = "ABCDEF"
        templates.pictures[die] = 6
    return templates


def dice_of(data_dir: Path) -> str:
    """The dice the store in ``data_dir`` reads, as the service's user sees them."""
    return ",".join(sorted(DiceStore(data_dir).load_templates().dice))


@pytest.fixture
def service_folder():
    """A data folder owned by another user, as /var/lib/companion is the service's: the test, as root, plays the
    game master's sudo, and that user the service."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as the service's user")
    nobody = pwd.getpwnam("nobody")
    folder = Path(tempfile.mkdtemp(prefix="companion-dice-"))
    os.chmod(folder, 0o755)
    os.chown(folder, nobody.pw_uid, nobody.pw_gid)
    try:
        warm_up = DiceStore(folder / "warm-up")  # what the service's process runs is imported before it drops root
        warm_up.save_templates(taught("dragon"))
        warm_up.load_templates()
        shutil.rmtree(folder / "warm-up")
        yield folder, (lambda fn: _as_user(nobody.pw_uid, nobody.pw_gid, fn))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_dice_taught_with_sudo_stay_the_services_to_read_and_to_teach_more(service_folder):
    # 'sudo companion dice teach --add' left root's files, readable by root alone: the service was told to teach
    # the dice again, and teaching on the Setup page set them aside as damaged, the evening's teaching with them.
    folder, as_service = service_folder
    assert as_service(lambda: DiceStore(folder).save_templates(taught("dragon"))) == ["ok", "None"]
    both = taught("dragon", "special")
    DiceStore(folder).save_templates(both)  # sudo, from a terminal
    assert as_service(lambda: dice_of(folder)) == ["ok", repr("dragon,special")]
    owner = pwd.getpwnam("nobody").pw_uid
    assert {p.name: p.stat().st_uid for p in (folder / "dice").iterdir()} == {"dice.json": owner,
                                                                             "templates.npz": owner}
    assert as_service(lambda: DiceStore(folder).save_templates(taught("dragon", "special", "goblin"))) == ["ok", "None"]
    assert dice_of(folder) == "dragon,goblin,special"


def test_a_dice_folder_made_with_sudo_is_the_services(service_folder):
    folder, as_service = service_folder
    DiceStore(folder).save_templates(taught("dragon"))  # the first teaching, with sudo: the folder is made too
    assert (folder / "dice").stat().st_uid == pwd.getpwnam("nobody").pw_uid
    assert as_service(lambda: DiceStore(folder).save_templates(taught("dragon", "special"))) == ["ok", "None"]


def test_dice_files_the_service_may_not_read_are_a_refusal_naming_the_owner_and_teaching_changes_nothing(
        service_folder):
    folder, as_service = service_folder
    DiceStore(folder).save_templates(taught("dragon", "special"))
    for path in [folder / "dice", *(folder / "dice").iterdir()]:
        os.chown(path, 0, 0)  # as a version before this one left them, or a copy made as root
    os.chmod(folder / "dice" / "dice.json", 0o600)
    before = fingerprint(folder)
    kind, text = as_service(lambda: DiceStore(folder).settings())
    assert kind == "ConfigError"
    assert "dice.json belongs to root" in text and "the companion runs as nobody" in text, text
    assert FAULTS["permission"].steps in text and "teach" not in text, text
    kind, text = as_service(lambda: DiceStore(folder).save_templates(taught("goblin")))  # the Setup page teaches
    assert kind == "ConfigError" and FAULTS["permission"].steps in text, text
    assert fingerprint(folder) == before and sorted(p.name for p in (folder / "dice").iterdir()) == [
        "dice.json", "templates.npz"]
    assert dice_of(folder) == "dragon,special"
    os.chmod(folder / "dice", 0o700)  # the folder itself closed to the service: said the same way, never a crash
    assert as_service(lambda: DiceStore(folder).changed_at()) == ["ok", "None"]
    kind, text = as_service(lambda: DiceStore(folder).settings())
    assert kind == "ConfigError" and "dice belongs to root" in text and FAULTS["permission"].steps in text, text


def test_dice_settings_that_are_not_settings_are_damage_and_teaching_again_sets_them_aside(data_dir):
    store = DiceStore(data_dir)
    store.save_templates(taught("dragon"))
    store._json.write_text("[1, 2]", "utf-8")  # JSON, but not the settings: a card that lost a block, an editor
    with pytest.raises(ConfigError, match="cannot read the dice settings.*teach the dice again"):
        store.settings()
    store.save_templates(taught("special"))
    assert dice_of(data_dir) == "special"
    assert (store.root / "dice.json.damaged").read_text("utf-8") == "[1, 2]"


def test_a_failing_card_under_the_dice_files_is_said_and_never_taken_for_damage(data_dir, monkeypatch):
    store = DiceStore(data_dir)
    store.save_templates(taught("dragon"))
    before = fingerprint(data_dir)
    real_open = Path.open

    def failing(path, *args, **kwargs):
        if path.name == "dice.json":
            raise OSError(errno.EIO, "Input/output error")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(Path, "open", failing)
    with pytest.raises(ConfigError) as refused:
        store.settings()
    assert FAULTS["io"].steps in str(refused.value) and "teach" not in str(refused.value)
    with pytest.raises(ConfigError, match="SD card is failing"):
        store.save_templates(taught("special"))
    monkeypatch.undo()
    assert fingerprint(data_dir) == before and dice_of(data_dir) == "dragon"


def test_a_full_card_keeps_the_taught_dice_whole_and_leaves_no_half_file_beside_them(data_dir, monkeypatch):
    store = DiceStore(data_dir)
    store.save_templates(taught("dragon"))
    before = fingerprint(data_dir)

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(ConfigError) as refused:
        store.save_templates(taught("dragon", "special"))
    assert FAULTS["full"].steps in str(refused.value)
    monkeypatch.undo()
    assert fingerprint(data_dir) == before and dice_of(data_dir) == "dragon"


def test_a_file_replaced_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path):
    kept = tmp_path / "kept.json"
    kept.write_text("{}")
    os.chmod(kept, 0o640)
    files.replace_file(kept, lambda handle: handle.write(b'{"a": 1}'))
    assert json.loads(kept.read_text()) == {"a": 1} and kept.stat().st_mode & 0o777 == 0o640
    old = os.umask(0o022)
    try:
        files.replace_file(tmp_path / "new" / "file.json", lambda handle: handle.write(b"{}"))
    finally:
        os.umask(old)
    assert (tmp_path / "new" / "file.json").stat().st_mode & 0o777 == 0o644  # the service's user may read it
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["file.json", "kept.json", "new"]


def test_card_facts_and_the_configuration_written_with_sudo_stay_the_services(service_folder):
    # The same files, the same trap: 'sudo companion cards ...' and 'sudo companion pin reset' from a terminal.
    from companion.carddata import CardData
    from companion.config import Config

    folder, as_service = service_folder
    CardData(folder, "fable").set_text("7", {"price": "6 smoothies"})  # sudo: the cards folder, its lock, its file
    Config.defaults().save(folder / "config.toml")
    nobody = pwd.getpwnam("nobody").pw_uid
    assert {str(p.relative_to(folder)): p.stat().st_uid for p in folder.rglob("*")} == {
        "cards": nobody, "cards/.fable.lock": nobody, "cards/fable.json": nobody, "config.toml": nobody}
    written = as_service(lambda: CardData(folder, "fable").set_text("7", {"price": "5 smoothies"})["price_text"])
    assert written == ["ok", repr("5 smoothies")]
    assert CardData(folder, "fable").overrides() == {"7": {"price": {"fruits": {}, "smoothies": 5}}}


def test_the_pictures_a_die_was_taught_from_are_kept_with_it_and_forgotten_with_it(data_dir, monkeypatch, caplog):
    # The Setup page shows, another evening, the pictures each die was taught from; teaching afresh forgets those of
    # dice no longer taught, and a card that cannot take a picture still keeps the dice taught.
    import cv2

    store = DiceStore(data_dir)
    red, green = np.full((40, 60, 3), (0, 0, 200), np.uint8), np.full((40, 60, 3), (0, 200, 0), np.uint8)
    store.save_templates(taught("dragon", "special"), pictures={"dragon": red, "special": green})
    shown = cv2.imdecode(np.frombuffer(store.pictures_of("special"), np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == green.shape and np.abs(shown.astype(int) - green).max() < 20
    described = store.describe()["dice"]
    assert described["dragon"]["pictures_kept"] and described["special"]["pictures_kept"]
    assert store.pictures_of("unknown") is None

    store.save_templates(taught("dragon"), pictures={"dragon": green})  # taught afresh: the special die is gone
    assert store.pictures_of("special") is None and not (store.root / "pictures" / "special.jpg").exists()
    assert store.describe()["dice"]["dragon"]["pictures_kept"] != described["dragon"]["pictures_kept"]

    real = files.replace_file

    def full_for_pictures(path, write):
        if Path(path).suffix == ".jpg":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, write)

    monkeypatch.setattr("companion.dicestore.replace_file", full_for_pictures)
    store.save_templates(taught("dragon", "special"), pictures={"dragon": red, "special": green})
    assert dice_of(data_dir) == "dragon,special"  # taught all the same
    assert "the pictures the special die was taught from could not be kept" in caplog.text
    assert "pictures_kept" not in store.describe()["dice"]["special"]
