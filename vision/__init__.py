"""Vision: pure functions on numpy arrays (tags, geometry, cards, dice, motion, synthetic scenes)."""
