"""The one check of a whole configuration: ``companion run`` at start, ``companion doctor`` and every
save from the dashboard's Setup page call :func:`check_config`, so none of them accepts what
another refuses.

Each key's own check lives beside its default in :mod:`companion.config` (types and ranges,
run when a file or a change is read). Here are the checks that span several keys or look at
the machine: pins in conflict, a file camera without files, a working image wider than the
frame, the camera named in ``COMPANION_CAMERA``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from companion.config import Config
from companion.errors import ConfigError


def check_config(config: Config, *, env: Mapping[str, str] | None = None) -> None:
    """Raise :class:`ConfigError` naming the file, the key and the reason; return None when all is well."""
    from hardware.camera.base import CameraUnavailable
    from hardware.camera.select import chosen_backend
    from hardware.gpio import PinConflict, check_pins

    source = config.source
    try:
        check_pins(config["gpio"])
    except PinConflict as exc:
        raise ConfigError(f"{source} [gpio] {exc}") from None
    camera = config["camera"]
    try:
        chosen_backend(camera, None, os.environ if env is None else env)
    except CameraUnavailable as exc:
        raise ConfigError(f"{exc}") from None
    if camera["backend"] == "file":
        path = camera["file_path"]
        if not path:
            raise ConfigError(f'{source} [camera] file_path = "": the file camera needs a photo, a folder of images or a video')
        if not Path(path).exists():
            raise ConfigError(f'{source} [camera] file_path = "{path}": no such file or folder')
    if camera["work_width"] > camera["full_width"]:
        raise ConfigError(f"{source} [camera] work_width = {camera['work_width']}: must not exceed "
                          f"full_width ({camera['full_width']})")
