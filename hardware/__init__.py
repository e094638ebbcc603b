"""Camera backends and GPIO devices. Imports neither companion nor web."""
