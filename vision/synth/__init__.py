"""Synthetic table pictures for tests, benchmarks and the demo camera.

``effects`` holds the camera's imperfections (perspective, blur, noise, uneven
light) shared by every scene; ``table`` renders Fabled Fruit tables with tagged
cards; ``dice`` renders pip dice and Fandooble's faces.
"""
