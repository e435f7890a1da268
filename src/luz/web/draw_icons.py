"""Draw the installable app's icons (static/icons/*.png) from the same picture as static/favicon.svg: a blue card
behind a yellow card marked "?", here on the header's dark blue. Run again after a change of the picture:

    python -m luz.web.draw_icons

Needs Pillow (a development dependency; the server only serves the PNGs) and, for the "?", DejaVu Sans Bold
(Debian's fonts-dejavu-core), else Pillow's own font.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ICONS = Path(__file__).parent / "static" / "icons"
NAVY = "#1d2b3a"
BLUE = "#1f5fbf"
YELLOW = "#f0c419"
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
SUPERSAMPLE = 4


def draw(size: int, *, maskable: bool = False, corner: float = 0.22) -> Any:
    """One icon of ``size`` pixels: a rounded square (the whole square for a maskable icon, whose picture then
    keeps inside the middle 80%, the safe zone every mask shape leaves) with the favicon's two cards."""
    from PIL import Image, ImageDraw, ImageFont

    big = size * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if maskable:
        pen.rectangle((0, 0, big, big), fill=NAVY)
    else:
        pen.rounded_rectangle((0, 0, big - 1, big - 1), radius=int(big * corner), fill=NAVY)
    # The favicon's 64-unit picture (cards at x 6..58, y 4..60), centred, scaled to a share of the icon.
    share = 0.62 if maskable else 0.8
    unit = big * share / 56
    left = (big - 52 * unit) / 2 - 6 * unit
    top = (big - 56 * unit) / 2 - 4 * unit

    def box(x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
        return (left + x * unit, top + y * unit, left + (x + w) * unit, top + (y + h) * unit)

    pen.rounded_rectangle(box(6, 4, 36, 50), radius=6 * unit, fill=BLUE, outline="#e9f1fb", width=int(1.5 * unit))
    pen.rounded_rectangle(box(22, 10, 36, 50), radius=6 * unit, fill=YELLOW, outline=NAVY, width=int(3 * unit))
    font_size = int(30 * unit)
    font = ImageFont.truetype(str(FONT), font_size) if FONT.exists() else ImageFont.load_default(font_size)
    pen.text((left + 40 * unit, top + 36 * unit), "?", fill=NAVY, font=font, anchor="mm")
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    ICONS.mkdir(exist_ok=True)
    for name, size, maskable in [
        ("icon-192.png", 192, False),
        ("icon-512.png", 512, False),
        ("maskable-512.png", 512, True),
        ("apple-touch-icon.png", 180, True),  # iOS rounds the corners itself, and wants no transparency
    ]:
        image = draw(size, maskable=maskable)
        if name.startswith("apple"):
            image = image.convert("RGB")
        image.save(ICONS / name, optimize=True)
        print(ICONS / name)


if __name__ == "__main__":
    main()
