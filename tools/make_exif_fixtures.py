#!/usr/bin/env python3
"""Makes the portrait fixtures of integration/cli/faces.sh that test EXIF orientation and small images.

    pip install pillow && python3 tools/make_exif_fixtures.py

Writes integration/cli/fixtures/ (the files are committed, so the tests need no Python):

  exif/orientation-N.jpg (N = 1..8)  avatars/sources/grace_hopper.jpg scaled to 256x300, its pixels stored
                                     transformed by the inverse of EXIF orientation N and tagged N, so that
                                     each displays upright, the same as orientation-1.jpg. Odd N are written
                                     big-endian ("MM"), even N little-endian ("II"); IFD0 holds a Make entry
                                     (its text at an offset) before Orientation, as cameras write it.
  exif/bad-offset.jpg                the upright 256x300 portrait with an EXIF block whose IFD0 offset is
                                     0xFFFFFFF6 (far past the block's end; an orientation-6 entry sits where a
                                     parser ignoring the offset would find it)
  exif/truncated-ifd.jpg             the upright portrait with an EXIF block whose IFD0 claims 3 entries but is
                                     cut off inside the Orientation entry (value 6)
  tiny-32x32.png                     the 256x300 portrait scaled to 32x32 (too small to find a face in)
  small-face-64x64.png               avatars/sources/astronaut.png scaled to 64x64 (a 13-pixel face)

Each orientation fixture is checked with Pillow's own reader before it is kept: the tag reads back as N and
ImageOps.exif_transpose gives the upright picture (within JPEG's loss).
"""
import io
import pathlib
import struct

from PIL import Image, ImageChops, ImageOps, ImageStat

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "integration" / "cli" / "fixtures"
SIZE = (256, 300)
QUALITY = 90

# The transform that stores an upright picture so that orientation N displays it upright: the inverse of
# what a viewer applies for N (Pillow's exif_transpose applies 6 as ROTATE_270 and 8 as ROTATE_90, counted
# counter-clockwise; 2, 3, 4, 5 and 7 are their own inverses).
STORE = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def tiff_block(orientation: int, big_endian: bool) -> bytes:
    """EXIF APP1 payload: "Exif\\0\\0", TIFF header, IFD0 with Make (ASCII at an offset) and Orientation."""
    e = ">" if big_endian else "<"
    make = b"essence2 fixture\0"
    header = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
    entries = 2
    data_offset = 8 + 2 + 12 * entries + 4
    ifd = struct.pack(e + "H", entries)
    ifd += struct.pack(e + "HHII", 0x010F, 2, len(make), data_offset)  # Make, ASCII, at data_offset
    ifd += struct.pack(e + "HHI", 0x0112, 3, 1) + struct.pack(e + "HH", orientation, 0)  # Orientation, SHORT
    ifd += struct.pack(e + "I", 0)  # no next IFD
    return b"Exif\0\0" + header + ifd + make


def bad_offset_block() -> bytes:
    """IFD0 offset far past the block; a well-formed orientation-6 IFD right after the header."""
    header = b"MM" + struct.pack(">HI", 42, 0xFFFFFFF6)
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0) + struct.pack(">I", 0)
    return b"Exif\0\0" + header + ifd


def truncated_ifd_block() -> bytes:
    """IFD0 claims 3 entries; the block ends inside the second (Orientation = 6, its value cut off)."""
    header = b"II" + struct.pack("<HI", 42, 8)
    ifd = struct.pack("<H", 3) + struct.pack("<HHII", 0x010F, 2, 4, 0) + struct.pack("<HHI", 0x0112, 3, 1)
    return b"Exif\0\0" + header + ifd


def jpeg(image: Image.Image, exif: bytes) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=QUALITY, exif=exif)
    return buffer.getvalue()


def main() -> None:
    (OUT / "exif").mkdir(parents=True, exist_ok=True)
    upright = Image.open(ROOT / "avatars" / "sources" / "grace_hopper.jpg").convert("RGB").resize(SIZE, Image.LANCZOS)

    for n, store in STORE.items():
        stored = upright if store is None else upright.transpose(store)
        data = jpeg(stored, tiff_block(n, big_endian=n % 2 == 1))
        check = Image.open(io.BytesIO(data))
        assert check.getexif().get(0x0112) == n, f"orientation {n} does not read back"
        shown = ImageOps.exif_transpose(check).convert("RGB")
        assert shown.size == SIZE, f"orientation {n} displays as {shown.size}"
        error = max(ImageStat.Stat(ImageChops.difference(shown, upright)).mean)
        assert error < 6, f"orientation {n} does not display upright (mean difference {error:.1f})"
        (OUT / "exif" / f"orientation-{n}.jpg").write_bytes(data)
        print(f"orientation-{n}.jpg: stored {stored.size[0]}x{stored.size[1]}, {len(data)} bytes, "
              f"displays upright (mean difference {error:.2f})")

    for name, block in [("bad-offset.jpg", bad_offset_block()), ("truncated-ifd.jpg", truncated_ifd_block())]:
        data = jpeg(upright, block)
        (OUT / "exif" / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")

    upright.resize((32, 32), Image.LANCZOS).save(OUT / "tiny-32x32.png", optimize=True)
    astronaut = Image.open(ROOT / "avatars" / "sources" / "astronaut.png").convert("RGB")
    astronaut.resize((64, 64), Image.LANCZOS).save(OUT / "small-face-64x64.png", optimize=True)
    print("tiny-32x32.png, small-face-64x64.png")


if __name__ == "__main__":
    main()
