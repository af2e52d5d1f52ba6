"""Procedural character heads with exactly known points (training data for the character point finder).

draw_scene(rng) -> (rgba uint8 HxWx4, points dict or None for a negative picture)

Points are in the scene's pixels, "left" = the picture's left:
  left_eye, right_eye (centres), left_eye_radius, right_eye_radius, mouth_left, mouth_right, mouth_center,
  left_brow, right_brow (None when not drawn), mouth ("open" / "closed" / "absent"),
  outline (16 points around the head, clockwise on screen from the top).

Everything is drawn with numpy + Pillow from one numpy Generator, so a seed gives the same picture.
"""
import io
import math

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

SCENE = 256  # scene size in drawing units (square); in pixels times the scale draw_scene draws at
N_OUTLINE = 16

# The drawing's scale while draw_scene(scale=k) runs: every coordinate (in SCENE units) and size is drawn at k
# pixels a unit, line widths at k * _LINES (thinner lines on a larger picture, as users' drawings have), so the
# same scene comes out larger with smooth edges. 1 and 1.0: the scenes as drawn before the scale existed.
_K = 1
_LINES = 1.0


def _px(v):
    """A coordinate, a point, a list of points or a box in SCENE units -> pixels at the current scale."""
    if _K == 1:
        return v
    a = np.asarray(v, np.float64) * _K
    if a.ndim == 0:
        return float(a)
    if a.ndim == 1:
        return tuple(a.tolist()) if len(a) == 2 else a.tolist()
    return [tuple(p) for p in a.tolist()]


def _width(w):
    """A line width in SCENE units' pixels -> pixels at the current scale (0 stays 0: no line)."""
    return w if _K == 1 or not w else max(1, int(round(w * _K * _LINES)))


class _ScaledDraw:
    """ImageDraw's calls draw_scene makes, taking SCENE units and drawing at the current scale."""

    def __init__(self, img):
        self.d = ImageDraw.Draw(img)

    def ellipse(self, xy, fill=None, outline=None, width=1):
        self.d.ellipse(_px(xy), fill=fill, outline=outline, width=_width(width))

    def rectangle(self, xy, fill=None, outline=None, width=1):
        self.d.rectangle(_px(xy), fill=fill, outline=outline, width=_width(width))

    def polygon(self, xy, fill=None, outline=None, width=1):
        self.d.polygon(_px(xy), fill=fill, outline=outline, width=_width(width))

    def line(self, xy, fill=None, width=0, joint=None):
        self.d.line(_px(xy), fill=fill, width=_width(width), joint=joint)


def _draw(img):
    """ImageDraw.Draw(img), or at the current scale (_ScaledDraw)."""
    return ImageDraw.Draw(img) if _K == 1 else _ScaledDraw(img)


def _col(rng, dark=None):
    if dark is True:
        v = rng.integers(0, 70, 3)
    elif dark is False:
        v = rng.integers(120, 256, 3)
    else:
        v = rng.integers(0, 256, 3)
    return tuple(int(x) for x in v)


def _skin(rng):
    k = rng.integers(0, 9)
    table = [(255, 220, 200), (240, 200, 160), (200, 150, 110), (120, 80, 50), (250, 230, 210),
             (255, 180, 190), (230, 190, 120), (245, 245, 245), (40, 40, 40)]
    if k < len(table) and rng.random() < 0.6:
        c = np.array(table[k]) + rng.integers(-20, 21, 3)
        return tuple(int(x) for x in np.clip(c, 0, 255))
    return _col(rng)


def _shade(c, f):
    return tuple(int(max(0, min(255, v * f))) for v in c)


class Head:
    """A head shape as a radius function of the angle theta (0 = top, clockwise on screen)."""

    def __init__(self, rng, cx, cy, R):
        self.cx, self.cy, self.R = cx, cy, R
        kind = rng.choice(["circle", "ellipse", "blob", "square", "egg", "pear"], p=[.2, .25, .2, .15, .1, .1])
        self.sx = R * (1.0 if kind == "circle" else rng.uniform(0.75, 1.15))
        self.sy = R * (1.0 if kind == "circle" else rng.uniform(0.85, 1.25))
        self.kind = kind
        self.p = rng.uniform(2.5, 5.0)  # superellipse exponent for squares
        self.harm = [(rng.uniform(0, 0.06), rng.integers(2, 6), rng.uniform(0, 2 * math.pi)) for _ in range(3)] \
            if kind == "blob" else []
        self.egg = rng.uniform(-0.25, 0.25) if kind in ("egg", "pear") else 0.0

    def radius(self, t):
        if self.kind == "square":
            c, s = abs(math.cos(t)), abs(math.sin(t))
            r = (c ** self.p + s ** self.p) ** (-1.0 / self.p)
        else:
            r = 1.0
        for a, k, ph in self.harm:
            r += a * math.cos(k * t + ph)
        return r

    def point(self, t, scale=1.0):
        r = self.radius(t) * scale
        x, y = math.sin(t), -math.cos(t)
        # egg / pear: wider at the bottom (egg > 0) or top
        wid = 1.0 + self.egg * y
        return (self.cx + self.sx * r * x * wid, self.cy + self.sy * r * y)

    def polygon(self, n=96, scale=1.0):
        return [self.point(2 * math.pi * i / n, scale) for i in range(n)]

    def outline16(self):
        return [self.point(2 * math.pi * i / N_OUTLINE) for i in range(N_OUTLINE)]


def _noise_texture(rng, size, scale, amp):
    h = max(2, size // scale)
    small = rng.normal(0, 1, (h, h)).astype(np.float32)
    img = Image.fromarray(((small * 40) + 128).clip(0, 255).astype(np.uint8)).resize((size, size), Image.BICUBIC)
    return (np.asarray(img, np.float32) - 128) / 40 * amp


def _fill_shape(canvas, mask_img, colour, rng, shading, texture):
    """Paints colour through mask (L image) onto canvas (RGBA, float array HxWx4 updated in place)."""
    m = np.asarray(mask_img, np.float32) / 255.0
    H = m.shape[0]
    col = np.array(colour, np.float32)[None, None, :].repeat(H, 0).repeat(H, 1)
    if shading == "gradient":
        ys, xs = np.mgrid[0:H, 0:H].astype(np.float32)
        ang = rng.uniform(0, 2 * math.pi)
        g = (np.cos(ang) * xs + np.sin(ang) * ys) / H
        g = (g - g.min()) / max(1e-6, g.max() - g.min())
        col = col * (0.75 + 0.45 * g[..., None])
    elif shading == "radial":
        ys, xs = np.mgrid[0:H, 0:H].astype(np.float32)
        ids = np.argwhere(m > 0.5)
        if len(ids):
            cy, cx = ids.mean(0)
            d = np.sqrt((xs - cx - rng.uniform(-20, 20) * _K) ** 2 + (ys - cy - rng.uniform(-20, 20) * _K) ** 2) / (H * .4)
            col = col * (1.15 - 0.4 * np.clip(d, 0, 1)[..., None])
    if texture > 0:
        col = col + _noise_texture(rng, H, int(rng.integers(1, 6)) * _K, texture)[..., None]
    col = np.clip(col, 0, 255)
    canvas[..., :3] = canvas[..., :3] * (1 - m[..., None]) + col * m[..., None]
    canvas[..., 3] = np.maximum(canvas[..., 3], m * 255)


def _mask(poly=None, ellipse=None, size=None, width=0):
    size = size or SCENE * _K
    im = Image.new("L", (size, size), 0)
    d = _draw(im)
    if poly is not None:
        d.polygon(poly, fill=255)
    if ellipse is not None:
        d.ellipse(ellipse, fill=255)
    return im


def _to_img(canvas):
    return Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8), "RGBA")


def _arc_points(x0, x1, y, bend, n=12):
    """Points along a parabola from (x0, y) to (x1, y) whose middle is at y + bend."""
    pts = []
    for i in range(n + 1):
        u = i / n
        pts.append((x0 + (x1 - x0) * u, y + bend * (1 - (2 * u - 1) ** 2)))
    return pts


def draw_scene(rng, negative=None, figure=False, extras=False, mouths=False, scale=1, lines=1.0):
    """figure: always a figure with a body below the head (head 5-25 % of the picture, in the upper half).
    extras: also the later additions (plush toys' faces and bodies: a muzzle, a big dark nose, bead or dim eyes,
    a stitched mouth line; bow ties and collars under the chin). Off, the same seed draws exactly the scene it drew
    before they existed (the first training stages' data).
    mouths: also the mouths the first data lacked (2026-12-04, evening): closed mouths drawn as filled lips with a
    line between them, as a bar or two bars; open mouths drawn as an outline around the face's colour or a light
    interior (teeth, a pink or purple tongue filling it). Off, a seed draws the scene it drew before.
    scale: the picture's pixels a SCENE unit (an integer; the points in pixels too), so the same scene comes out
    as large as users' pictures are, with smooth edges; lines: its line widths' factor on top of that (1: as thick
    against the head as at scale 1). The same seed draws the same scene at every scale."""
    global _K, _LINES
    if int(scale) != scale or scale < 1 or not 0 < lines < 10:
        raise ValueError(f"draw_scene: scale must be a whole number from 1 and lines in (0, 10), not {scale}, {lines}")
    _K, _LINES = int(scale), float(lines)
    try:
        img, pts = _draw_scene(rng, negative, figure, extras, mouths)
    finally:
        _K, _LINES = 1, 1.0
    return img, pts


def _draw_scene(rng, negative, figure, extras, mouths):
    S = SCENE
    P = SCENE * _K  # the picture's side in pixels
    if negative is None:
        negative = rng.random() < 0.07
    # ---- background
    bgk = rng.choice(["white", "transparent", "colour", "noise", "gradient"], p=[.3, .25, .2, .1, .15])
    canvas = np.zeros((P, P, 4), np.float32)
    if bgk == "white":
        canvas[...] = (255, 255, 255, 255)
    elif bgk == "transparent":
        canvas[...] = (255, 255, 255, 0)
    elif bgk == "colour":
        canvas[..., :3] = _col(rng)
        canvas[..., 3] = 255
    elif bgk == "noise":
        canvas[..., :3] = np.array(_col(rng), np.float32) + _noise_texture(rng, P, int(rng.integers(2, 30)) * _K, 40)[..., None]
        canvas[..., 3] = 255
    else:
        ys = np.linspace(0, 1, P, dtype=np.float32)[:, None, None]
        canvas[..., :3] = np.array(_col(rng), np.float32) * (1 - ys) + np.array(_col(rng), np.float32) * ys
        canvas[..., 3] = 255

    if negative:
        img = _to_img(canvas)
        d = _draw(img)
        for _ in range(int(rng.integers(0, 6))):
            x, y = rng.uniform(0, S, 2)
            r = rng.uniform(5, 80)
            if rng.random() < .5:
                d.ellipse([x - r, y - r * rng.uniform(.5, 1.5), x + r, y + r], fill=_col(rng) + (255,),
                          outline=_col(rng, True) + (255,), width=int(rng.integers(0, 5)))
            else:
                d.rectangle([x - r, y - r, x + r * rng.uniform(.5, 2), y + r], fill=_col(rng) + (255,))
        return _augment(rng, img), None

    # ---- placement: head centre and radius
    small = rng.random() < .2  # a small figure (a wizard at a desk): head 10-20 % of the picture, body below
    if figure:  # a teddy, snowman, squirrel or wizard: the body below is as large as the head or larger
        R = float(rng.uniform(12, 60))
        cx = float(rng.uniform(R * 0.8, S - R * 0.8))
        cy = float(rng.uniform(R * 0.9, max(R * 0.9 + 1, S * 0.55)))
    else:
        R = float(rng.uniform(12, 28) if small else rng.uniform(28, 95))
        cx = float(rng.uniform(R * 0.8, S - R * 0.8))
        cy = float(rng.uniform(R * 0.9, S - R * 0.6))
    head = Head(rng, cx, cy, R)
    outline_w = int(rng.choice([0, 0, 1, 2, 3, 4, 6]) * max(0.6, R / 60))
    out_col = _col(rng, True) if rng.random() < .85 else _col(rng)
    skin = _skin(rng)
    shading = rng.choice(["flat", "flat", "gradient", "radial"])
    texture = float(rng.choice([0, 0, 0, 8, 20])) if rng.random() < .8 else 35.0  # 35: fur, like a plush toy
    plush = texture >= 35
    if plush:
        outline_w = 0
    yaw = float(rng.choice([0.0, rng.uniform(-.25, .25), rng.uniform(-.5, .5)], p=[.45, .35, .2]))

    def stroke(img, pts, w, fill=None, closed=True):
        d = _draw(img)
        if fill is not None:
            d.polygon(pts, fill=fill)
        if w > 0:
            d.line(pts + ([pts[0]] if closed else []), fill=out_col + (255,), width=w, joint="curve")

    # ---- body (drawn first, under the head)
    img = _to_img(canvas)
    if extras and plush and rng.random() < .5:  # a seated plush toy: a furry body, arms and feet in the head's colour
        canvas = _plush_body(rng, canvas, head, skin)
        img = _to_img(canvas)
    elif small or figure or rng.random() < .55:
        bw = R * (rng.uniform(0.8, 2.4) if figure else rng.uniform(0.8, 1.9))
        top = cy + head.sy * rng.uniform(0.6, 1.0)
        bcol = _col(rng)
        kind = rng.integers(0, 3)
        d = _draw(img)
        if kind == 0:  # snowman / toy: ellipse
            d.ellipse([cx - bw, top - R * .2, cx + bw, top + 2 * bw], fill=(skin if rng.random() < .5 else bcol) + (255,),
                      outline=out_col + (255,), width=outline_w)
        else:  # shirt: trapezoid
            poly = [(cx - bw * .5, top), (cx + bw * .5, top), (cx + bw * 1.2, S + 5), (cx - bw * 1.2, S + 5)]
            stroke(img, poly, outline_w, fill=bcol + (255,))
        if rng.random() < .3:  # an arm / stick / broom
            x0 = cx + rng.choice([-1, 1]) * bw
            d.line([(x0, top + R * .5), (x0 + rng.uniform(-R, R), top - rng.uniform(0, R))],
                   fill=_col(rng) + (255,), width=int(max(2, R * .12)))
    canvas = np.asarray(img, np.float32).copy()

    # ---- ears (under the head)
    ear_kind = rng.choice(["none", "round", "pointy", "floppy", "antenna"], p=[.35, .2, .2, .15, .1])
    ear_col = skin if rng.random() < .7 else _col(rng)
    img = _to_img(canvas)
    d = _draw(img)
    for side in (-1, 1):
        if ear_kind == "round":
            t = side * rng.uniform(0.55, 0.9)
            ex, ey = head.point(t)
            er = R * rng.uniform(.2, .4)
            d.ellipse([ex - er, ey - er, ex + er, ey + er], fill=ear_col + (255,), outline=out_col + (255,), width=outline_w)
        elif ear_kind == "pointy":
            t = side * rng.uniform(0.4, 0.9)
            bx0, by0 = head.point(t - .35 * side, .9)
            bx1, by1 = head.point(t + .35 * side, .9)
            tx, ty = head.point(t, rng.uniform(1.4, 1.9))
            stroke(img, [(bx0, by0), (tx, ty), (bx1, by1)], outline_w, fill=ear_col + (255,))
        elif ear_kind == "floppy":
            ex, ey = head.point(side * rng.uniform(1.2, 1.7))
            er = R * rng.uniform(.2, .35)
            d.ellipse([ex - er, ey - er * 2, ex + er, ey + er * 1.2], fill=_shade(ear_col, .7) + (255,),
                      outline=out_col + (255,), width=outline_w)
        elif ear_kind == "antenna":
            bx, by = head.point(side * .4)
            tx, ty = bx + side * R * .3, by - R * .6
            d.line([(bx, by), (tx, ty)], fill=out_col + (255,), width=max(2, outline_w))
            d.ellipse([tx - R * .1, ty - R * .1, tx + R * .1, ty + R * .1], fill=ear_col + (255,), outline=out_col + (255,),
                      width=outline_w)
    canvas = np.asarray(img, np.float32).copy()

    # ---- head
    poly = head.polygon()
    _fill_shape(canvas, _mask(poly), skin, rng, shading, texture)
    img = _to_img(canvas)
    if outline_w:
        stroke(img, poly, outline_w)
    if extras and rng.random() < .3:  # a bow tie or a collar under the chin
        _neckwear(rng, img, head, out_col)

    # ---- face layout
    ex = R * rng.uniform(0.2, 0.45)
    ey = cy + head.sy * rng.uniform(-0.35, 0.1)
    off = yaw * R
    lx = cx + off - ex * (1 + yaw * 0.8)
    rx = cx + off + ex * (1 - yaw * 0.8)
    mouth_y = ey + R * rng.uniform(0.3, 0.75)
    mouth_y = min(mouth_y, cy + head.sy * 0.85)
    mw = R * rng.uniform(0.1, 0.4)
    mcx = cx + off * 1.1
    # ---- hair / hat (over the head top)
    top_kind = rng.choice(["none", "hair", "cap", "tophat", "wizard"], p=[.45, .3, .1, .08, .07])
    if top_kind == "hair":
        hcol = _col(rng) if rng.random() < .5 else _col(rng, True)
        hp = [head.point(t, 1.08) for t in np.linspace(-1.7, 1.7, 30)]
        fringe = ey - R * rng.uniform(.45, .7)
        hp += [(head.point(1.7)[0], fringe), (cx, fringe + R * rng.uniform(-.1, .1)), (head.point(-1.7)[0], fringe)]
        if rng.random() < .4:  # long hair down the sides
            hp = [head.point(t, 1.12) for t in np.linspace(-2.6, 2.6, 40)] + \
                 [(head.point(2.6)[0] - R * .15, cy), (cx + R * .5, fringe), (cx - R * .5, fringe), (head.point(-2.6)[0] + R * .15, cy)]
        stroke(img, hp, outline_w, fill=hcol + (255,))

    # snout / muzzle / beak (behind the mouth)
    d = _draw(img)
    plush_face = extras and (plush or rng.random() < .1) and rng.random() < .7
    snout = "plush" if plush_face else rng.choice(["none", "muzzle", "pig", "beak"], p=[.55, .25, .12, .08])
    if plush_face:  # a light muzzle, a big dark nose at its top, the mouth (a stitched line, or none) below
        sr = R * rng.uniform(.28, .45)
        mouth_y = max(mouth_y, ey + R * .45)
        sc = (mcx, mouth_y - sr * rng.uniform(.1, .5))
        mcol = _shade(skin, rng.uniform(1.0, 1.35)) if rng.random() < .7 else _shade(skin, rng.uniform(.8, 1.0))
        _fill_shape_img(img, _mask(ellipse=[sc[0] - sr * 1.25, sc[1] - sr * .85, sc[0] + sr * 1.25, sc[1] + sr * .85]),
                        mcol, rng, texture)
        d = _draw(img)
        nw, nh = R * rng.uniform(.1, .2), R * rng.uniform(.07, .13)
        nyp = sc[1] - sr * rng.uniform(.2, .6)
        ncol = _col(rng, True) if rng.random() < .85 else _shade(skin, .45)
        d.ellipse([mcx - nw, nyp - nh, mcx + nw, nyp + nh], fill=ncol + (255,))
        if rng.random() < .6:  # the nose's shine
            d.ellipse([mcx - nw * .5, nyp - nh * .7, mcx - nw * .1, nyp - nh * .3], fill=_shade(ncol, 3.0) + (255,))
        mouth_y = max(mouth_y, nyp + nh + R * rng.uniform(.08, .25))
        mw = min(mw, sr * .9)
        plush_stitch = (nyp + nh, _shade(ncol, 1.2), max(1, int(R * rng.uniform(.015, .04))))
    if snout == "muzzle":
        sr = R * rng.uniform(.3, .5)
        sc = (mcx, (ey + mouth_y) / 2 + R * .1)
        d.ellipse([sc[0] - sr * 1.2, sc[1] - sr * .8, sc[0] + sr * 1.2, sc[1] + sr * .8],
                  fill=_shade(skin, rng.uniform(.7, 1.3)) + (255,), outline=out_col + (255,), width=outline_w // 2)
        mw = min(mw, sr)
    elif snout == "pig":
        sr = R * rng.uniform(.2, .3)
        sc = (mcx, (ey + mouth_y) / 2 + R * .05)
        d.ellipse([sc[0] - sr * 1.3, sc[1] - sr, sc[0] + sr * 1.3, sc[1] + sr], fill=_shade(skin, 1.2) + (255,),
                  outline=out_col + (255,), width=outline_w // 2)
        nc = _col(rng, True) if rng.random() < .7 else _col(rng)
        for s in (-1, 1):
            d.ellipse([sc[0] + s * sr * .5 - sr * .3, sc[1] - sr * .4, sc[0] + s * sr * .5 + sr * .3, sc[1] + sr * .4],
                      fill=nc + (255,))
        mouth_y = max(mouth_y, sc[1] + sr * 1.3)
    # nose
    nose = rng.choice(["none", "dot", "tri", "line", "clown"], p=[.3, .3, .15, .15, .1])
    ny = (ey + mouth_y) / 2
    nx = mcx + yaw * R * .2
    nr = R * rng.uniform(.04, .14)
    if snout not in ("pig", "plush") and nose != "none":
        if nose == "dot":
            d.ellipse([nx - nr * 1.3, ny - nr, nx + nr * 1.3, ny + nr], fill=_col(rng, True) + (255,))
        elif nose == "tri":
            d.polygon([(nx - nr * 1.3, ny - nr), (nx + nr * 1.3, ny - nr), (nx, ny + nr)], fill=_col(rng, True) + (255,))
        elif nose == "line":
            d.line([(nx, ny - nr * 2), (nx - nr, ny + nr), (nx + nr * .5, ny + nr)], fill=out_col + (255,),
                   width=max(1, outline_w // 2 or 2))
        else:
            nr2 = nr * 1.6
            d.ellipse([nx - nr2, ny - nr2, nx + nr2, ny + nr2], fill=(int(rng.integers(180, 256)), 20, 20, 255))
            if rng.random() < .5:  # carrot (snowman)
                d.polygon([(nx, ny - nr), (nx, ny + nr), (nx + rng.choice([-1, 1]) * R * .6, ny)], fill=(240, 130, 30, 255))

    # ---- mouth
    mstate = rng.choice(["open", "closed", "absent"], p=[.4, .45, .15])
    if plush_face:
        mstate = rng.choice(["open", "closed", "absent"], p=[.1, .6, .3])
    ml = (mcx - mw * (1 + yaw * .5), mouth_y)
    mr = (mcx + mw * (1 - yaw * .5), mouth_y)
    mc = ((ml[0] + mr[0]) / 2, mouth_y)
    lip = _col(rng, True) if rng.random() < .7 else (int(rng.integers(150, 240)), 40, 40)
    lw = max(1, int(R * rng.uniform(.02, .06)))
    if snout == "beak":
        bl = R * rng.uniform(.3, .6)
        beak_col = (int(rng.integers(200, 256)), int(rng.integers(100, 200)), 0)
        tipx = mc[0] + yaw * bl * 2
        d.polygon([(ml[0], ml[1] - mw * .5), (mr[0], mr[1] - mw * .5), (tipx, mc[1] + bl)], fill=beak_col + (255,),
                  outline=out_col + (255,))
        if mstate == "open":
            d.polygon([(ml[0], ml[1]), (mr[0], mr[1]), (tipx, mc[1] + bl * .8)], fill=(60, 20, 20, 255))
        mstate = "open" if mstate == "open" else "closed"
        d.line([ml, mr], fill=out_col + (255,), width=lw)
    elif mstate == "closed" and plush_face:  # a stitched Y: the line down from the nose, then the mouth's curve
        top, scol, sw = plush_stitch
        bend = R * rng.uniform(-.08, .12)
        pts = _arc_points(ml[0], mr[0], mouth_y, bend)
        mc = pts[len(pts) // 2]
        d.line([(mcx, top), mc], fill=scol + (255,), width=sw)
        d.line(pts, fill=scol + (255,), width=sw, joint="curve")
    elif mstate == "closed" and mouths and rng.random() < .7:
        mc = _closed_mouth_shape(rng, d, ml, mr, mouth_y, mw, skin, out_col, lw)
    elif mstate == "closed":
        bend = R * rng.uniform(-.05, .2) * rng.choice([1, 1, 1, 0])
        pts = _arc_points(ml[0], mr[0], mouth_y, bend)
        d.line(pts, fill=lip + (255,), width=lw, joint="curve")
        mc = pts[len(pts) // 2]
        if rng.random() < .3:  # dimples
            for p in (ml, mr):
                d.line([(p[0], p[1] - lw * 2), (p[0], p[1] + lw * 2)], fill=lip + (255,), width=max(1, lw // 2))
    elif mstate == "open" and mouths and rng.random() < .6:
        mc = _open_mouth_shape(rng, d, ml, mr, mouth_y, mw, skin, out_col, lw)
    elif mstate == "open":
        h = R * rng.uniform(.06, .35)
        shape = rng.integers(0, 3)
        inner = (int(rng.integers(60, 160)), int(rng.integers(0, 40)), int(rng.integers(0, 50)))
        if shape == 0:  # D smile: flat top, round bottom
            pts = [ml, mr] + [(mcx + mw * math.cos(a), mouth_y + h * math.sin(a)) for a in np.linspace(0, math.pi, 16)]
            mc = (mc[0], mouth_y + h * .5)
        elif shape == 1:  # ellipse / O
            pts = [(mcx + mw * math.cos(a), mouth_y + h * .5 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 24)]
        else:  # smile curve open
            top = _arc_points(ml[0], mr[0], mouth_y, h * .3)
            bot = _arc_points(mr[0], ml[0], mouth_y, h)
            pts = top + bot
            mc = (mc[0], mouth_y + h * .6)
        d.polygon(pts, fill=inner + (255,), outline=lip + (255,))
        d.line(pts + [pts[0]], fill=lip + (255,), width=lw)
        if rng.random() < .4:  # teeth
            d.rectangle([mcx - mw * .6, mouth_y + lw, mcx + mw * .6, mouth_y + lw + h * .25], fill=(250, 250, 250, 255))
        if rng.random() < .3:  # tongue
            d.ellipse([mcx - mw * .4, mouth_y + h * .5, mcx + mw * .4, mouth_y + h * 1.1], fill=(230, 100, 120, 255))
        if shape == 1:
            mc = (mcx, mouth_y)

    # ---- eyes
    ekind = rng.choice(["dot", "oval", "anime", "closed", "ring"], p=[.3, .3, .15, .12, .13])
    if plush_face and rng.random() < .8:
        ekind = "dot"
    er = R * rng.uniform(.05, .2)
    if ekind == "dot":
        er = R * rng.uniform(.04, .12)
    eh = er * rng.uniform(1.0, 1.6) if ekind in ("oval", "anime") else er
    eye_col = _col(rng, True) if rng.random() < .8 else _col(rng)
    if plush_face and rng.random() < .35:  # dim eyes, sunk in the fur (darker fur, not black)
        eye_col = _shade(skin, rng.uniform(.25, .55))
    radii = []
    hide_far = rng.random() < .4
    for i, x in enumerate((lx, rx)):
        far = (yaw > .2 and i == 0) or (yaw < -.2 and i == 1)
        sx = er * (1 - abs(yaw) * .6 if far else 1)
        if far and abs(yaw) > .3 and hide_far:  # hidden (behind hair or the nose): labelled where it would be
            radii.append(float((sx + eh) / 2))
            continue
        if ekind == "dot":
            d.ellipse([x - sx, ey - eh, x + sx, ey + eh], fill=eye_col + (255,))
            if rng.random() < .5:
                hr = er * .35
                d.ellipse([x - sx * .4 - hr, ey - eh * .4 - hr, x - sx * .4 + hr, ey - eh * .4 + hr], fill=(255, 255, 255, 255))
        elif ekind in ("oval", "anime", "ring"):
            scl = (255, 255, 255) if rng.random() < .85 else _col(rng, False)
            d.ellipse([x - sx, ey - eh, x + sx, ey + eh], fill=scl + (255,), outline=out_col + (255,),
                      width=max(1, outline_w // 2 or 1))
            pr = min(sx, eh) * (rng.uniform(.4, .8) if ekind != "anime" else .8)
            px = x + yaw * sx * .5 + rng.uniform(-.2, .2) * sx
            py = ey + (eh - pr) * (.2 if ekind == "anime" else 0)
            iris = _col(rng)
            d.ellipse([px - pr, py - pr * (1.3 if ekind == "anime" else 1), px + pr, py + pr * (1.3 if ekind == "anime" else 1)],
                      fill=iris + (255,))
            d.ellipse([px - pr * .5, py - pr * .5, px + pr * .5, py + pr * .5], fill=(10, 10, 10, 255))
            if ekind == "anime":
                d.ellipse([px - pr * .6, py - pr * .9, px - pr * .1, py - pr * .4], fill=(255, 255, 255, 255))
        else:  # closed: an arc ^ or u
            bend = eh * rng.choice([-1, 1]) * .8
            d.line(_arc_points(x - sx, x + sx, ey, bend, 8), fill=eye_col + (255,), width=max(2, int(er * .35)),
                   joint="curve")
        radii.append(float((sx + eh) / 2))
    if ekind == "ring" or rng.random() < .12:  # glasses (sunglasses sometimes)
        gr = max(er, eh) * rng.uniform(1.3, 1.8)
        dark = rng.random() < .4
        gcol = _col(rng, True)
        for x in (lx, rx):
            d.ellipse([x - gr, ey - gr * .85, x + gr, ey + gr * .85], fill=(gcol + (255,)) if dark else None,
                      outline=gcol + (255,), width=max(2, int(R * .04)))
            if dark:
                d.ellipse([x - gr * .5, ey - gr * .5, x - gr * .2, ey - gr * .2], fill=(200, 200, 200, 255))
        d.line([(lx + gr, ey), (rx - gr, ey)], fill=gcol + (255,), width=max(2, int(R * .04)))

    # ---- brows
    brows = rng.random() < .45
    lb = rb = None
    if brows:
        by = ey - max(er, eh) - R * rng.uniform(.06, .2)
        bw = max(er, R * .1) * rng.uniform(1.0, 1.5)
        bcol = _col(rng, True)
        tilt = rng.uniform(-.3, .3) * bw
        thick = max(2, int(R * rng.uniform(.03, .09)))
        for i, x in enumerate((lx, rx)):
            s = -1 if i == 0 else 1
            pts = _arc_points(x - bw, x + bw, by, -R * rng.uniform(0, .08), 6)
            pts = [(px, py + s * tilt * (px - x) / bw) for px, py in pts]
            d.line(pts, fill=bcol + (255,), width=thick, joint="curve")
            if i == 0:
                lb = pts[3]  # centre of the brow line
            else:
                rb = pts[3]

    if top_kind in ("cap", "tophat", "wizard"):
        hcol = _col(rng)
        tx, ty = head.point(0)
        hw = head.sx * rng.uniform(.7, 1.1)
        brim = ty + R * rng.uniform(.1, .3)
        if top_kind == "cap":
            stroke(img, [(tx - hw, brim)] + [(tx + hw * math.cos(a), brim - hw * .8 * math.sin(a)) for a in np.linspace(0, math.pi, 12)][::-1]
                   + [(tx + hw, brim)], outline_w, fill=hcol + (255,))
        elif top_kind == "tophat":
            h = R * rng.uniform(.6, 1.0)
            stroke(img, [(tx - hw * .6, brim), (tx - hw * .6, brim - h), (tx + hw * .6, brim - h), (tx + hw * .6, brim)],
                   outline_w, fill=hcol + (255,))
            stroke(img, [(tx - hw, brim), (tx + hw, brim), (tx + hw, brim + R * .08), (tx - hw, brim + R * .08)],
                   outline_w, fill=hcol + (255,))
        else:
            h = R * rng.uniform(1.0, 1.8)
            stroke(img, [(tx - hw, brim), (tx + rng.uniform(-.5, .5) * hw, brim - h), (tx + hw, brim)], outline_w,
                   fill=hcol + (255,))
        if top_kind == "wizard" and rng.random() < .7:  # a beard covering the chin, mouth stays visible
            bx0, by0 = head.point(-2.0)
            bx1, by1 = head.point(2.0)
            stroke(img, [(bx1, by1), (cx + R * .3, cy + head.sy * 1.6), (cx, cy + head.sy * 2.0), (cx - R * .3, cy + head.sy * 1.6),
                         (bx0, by0), (mc[0] - mw * 1.3, mouth_y + R * .1), (mc[0] + mw * 1.3, mouth_y + R * .1)], 0,
                   fill=(235, 235, 235, 255))


    pts = dict(left_eye=(lx, ey), right_eye=(rx, ey), left_eye_radius=radii[0], right_eye_radius=radii[1],
               mouth_left=ml, mouth_right=mr, mouth_center=mc, left_brow=lb if brows else None,
               right_brow=rb if brows else None, mouth=str(mstate), outline=head.outline16())

    # ---- rotation about the head centre
    if rng.random() < .6:
        ang = float(rng.uniform(-15, 15))
        img = img.rotate(ang, resample=Image.BICUBIC, center=(cx * _K, cy * _K), fillcolor=None)
        img = _refill(img, canvas, bgk)
        pts = rotate_points(pts, ang, cx, cy)
    return _augment(rng, img), scale_points(pts, _K)


def _lip_colour(rng, skin):
    """A lip colour: red, orange, pink, brown, a darker shade of the skin, or black."""
    k = rng.choice(["red", "orange", "pink", "brown", "shade", "dark"])
    return {"red": lambda: (int(rng.integers(170, 240)), int(rng.integers(20, 70)), int(rng.integers(20, 70))),
            "orange": lambda: (int(rng.integers(220, 256)), int(rng.integers(90, 150)), int(rng.integers(20, 70))),
            "pink": lambda: (int(rng.integers(200, 250)), int(rng.integers(110, 160)), int(rng.integers(130, 180))),
            "brown": lambda: (int(rng.integers(110, 170)), int(rng.integers(50, 90)), int(rng.integers(30, 60))),
            "shade": lambda: _shade(skin, float(rng.uniform(.55, .8))),
            "dark": lambda: _col(rng, True)}[str(k)]()


def _closed_mouth_shape(rng, d, ml, mr, y, mw, skin, out_col, lw):
    """A closed mouth as users' pictures draw one (not a bare line): filled lips, the upper and lower one, with
    the line where they meet; a filled bar; or two bars, the upper thicker, the face's colour between. Returns the
    mouth's centre (the middle of the line where the lips meet)."""
    kind = rng.choice(["lips", "bar", "bars"], p=[.55, .25, .2])
    lip = _lip_colour(rng, skin)
    bend = mw * rng.uniform(-.1, .3)  # a smile (positive: the middle lower)
    line = _arc_points(ml[0], mr[0], y, bend, 16)
    if kind == "lips":
        up, down = mw * rng.uniform(.08, .25), mw * rng.uniform(.1, .3)
        n = len(line)
        upper = [(x, yy - up * math.sin(math.pi * i / (n - 1)) ** .7) for i, (x, yy) in enumerate(line)]
        lower = [(x, yy + down * math.sin(math.pi * i / (n - 1)) ** .8) for i, (x, yy) in enumerate(line)]
        d.polygon(upper + lower[::-1], fill=lip + (255,),
                  outline=(out_col + (255,)) if rng.random() < .6 else None)
        d.line(line, fill=(_shade(lip, .45) if rng.random() < .6 else out_col) + (255,), width=max(1, lw), joint="curve")
    elif kind == "bar":
        h = mw * rng.uniform(.06, .2)
        col = _col(rng, True) if rng.random() < .6 else lip
        top = [(x, yy - h / 2) for x, yy in line]
        bot = [(x, yy + h / 2) for x, yy in line]
        d.polygon(top + bot[::-1], fill=col + (255,))
    else:
        h1, h2, gap = mw * rng.uniform(.08, .18), mw * rng.uniform(.04, .1), mw * rng.uniform(.05, .18)
        col = _col(rng, True)
        top = [(x, yy - gap / 2 - h1) for x, yy in line]
        mid1 = [(x, yy - gap / 2) for x, yy in line]
        k = max(2, len(line) // 5)
        short = line[k:-k]
        mid2 = [(x, yy + gap / 2) for x, yy in short]
        bot = [(x, yy + gap / 2 + h2) for x, yy in short]
        d.polygon(top + mid1[::-1], fill=col + (255,))
        d.polygon(mid2 + bot[::-1], fill=col + (255,))
    return line[len(line) // 2]


def _open_mouth_shape(rng, d, ml, mr, y, mw, skin, out_col, lw):
    """An open mouth as users' pictures draw one besides a dark filled shape: an outline (thick, dark) around the
    face's colour or white, sometimes a tongue at the bottom; or a light interior (white teeth filling the top,
    a pink or purple tongue) inside lips. Returns the opening's centre."""
    cx = (ml[0] + mr[0]) / 2
    h = mw * rng.uniform(.35, 1.0)
    shape = rng.choice(["D", "smile", "O"])
    if shape == "D":
        pts = [ml, mr] + [(cx + (mr[0] - ml[0]) / 2 * math.cos(a), y + h * math.sin(a)) for a in np.linspace(0, math.pi, 16)]
        centre = (cx, y + h * .45)
    elif shape == "smile":
        pts = _arc_points(ml[0], mr[0], y, h * .25) + _arc_points(mr[0], ml[0], y, h)
        centre = (cx, y + h * .6)
    else:
        pts = [(cx + (mr[0] - ml[0]) / 2 * math.cos(a), y + h * .5 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 24)]
        centre = (cx, y)
    kind = rng.choice(["outline", "light"], p=[.5, .5])
    if kind == "outline":
        inner = skin if rng.random() < .5 else (255, 255, 255)
        d.polygon(pts, fill=inner + (255,))
        d.line(pts + [pts[0]], fill=out_col + (255,), width=max(2, int(lw * rng.uniform(1.5, 3))), joint="curve")
        if rng.random() < .4:
            d.ellipse([cx - mw * .25, centre[1] + h * .05, cx + mw * .25, centre[1] + h * .45],
                      fill=(int(rng.integers(200, 250)), int(rng.integers(80, 130)), int(rng.integers(100, 150)), 255))
    else:
        tongue = (int(rng.integers(150, 240)), int(rng.integers(60, 130)), int(rng.integers(100, 200)))
        d.polygon(pts, fill=tongue + (255,))
        top = min(p[1] for p in pts)
        d.rectangle([cx - mw * .35, top, cx + mw * .35, top + h * rng.uniform(.15, .35)], fill=(250, 250, 245, 255))
        d.line(pts + [pts[0]], fill=_lip_colour(rng, skin) + (255,), width=max(2, int(mw * rng.uniform(.05, .15))),
               joint="curve")
    return centre


def _fill_shape_img(img, mask_img, colour, rng, texture):
    """_fill_shape onto a Pillow RGBA image in place (flat shading, the given texture)."""
    canvas = np.asarray(img, np.float32).copy()
    _fill_shape(canvas, mask_img, colour, rng, "flat", texture)
    img.paste(_to_img(canvas))


def _plush_body(rng, canvas, head, skin):
    """A seated plush toy's body under the head: a furry trunk, two arms and two feet with lighter pads, all in the
    head's colour (the canvas float array is updated and returned)."""
    cx, R = head.cx, head.R
    top = head.cy + head.sy * rng.uniform(.6, .9)
    bw, bh = R * rng.uniform(.8, 1.3), R * rng.uniform(1.0, 1.6)
    fur = 35.0
    _fill_shape(canvas, _mask(ellipse=[cx - bw, top - bh * .2, cx + bw, top + bh * 1.6]), _shade(skin, rng.uniform(.85, 1.05)),
                rng, "flat", fur)
    for s in (-1, 1):
        ax = cx + s * bw * rng.uniform(.8, 1.2)
        ay = top + bh * rng.uniform(.2, .5)
        ar = R * rng.uniform(.25, .4)
        _fill_shape(canvas, _mask(ellipse=[ax - ar, ay - ar * 1.4, ax + ar, ay + ar * 1.4]), _shade(skin, rng.uniform(.8, 1.0)),
                    rng, "flat", fur)
        fx = cx + s * bw * rng.uniform(.4, .8)
        fy = top + bh * rng.uniform(1.2, 1.5)
        fr = R * rng.uniform(.3, .5)
        _fill_shape(canvas, _mask(ellipse=[fx - fr, fy - fr, fx + fr, fy + fr]), skin, rng, "flat", fur)
        if rng.random() < .6:  # the foot's pad
            pr = fr * .6
            _fill_shape(canvas, _mask(ellipse=[fx - pr, fy - pr, fx + pr, fy + pr]), _shade(skin, rng.uniform(.6, 1.4)),
                        rng, "flat", 15.0)
    return canvas


def _neckwear(rng, img, head, out_col):
    """A bow tie (plain, striped or checked) or a collar band where the head meets the body."""
    d = _draw(img)
    R = head.R
    nx, ny = head.point(math.pi, rng.uniform(.9, 1.05))
    col = _col(rng)
    if rng.random() < .6:  # bow tie: two triangles and a knot
        w, h = R * rng.uniform(.3, .6), R * rng.uniform(.15, .3)
        wings = [[(nx, ny), (nx + s * w, ny - h), (nx + s * w, ny + h)] for s in (-1, 1)]
        if rng.random() < .5:  # checks or stripes: a pattern painted through the bow's shape
            pat = Image.new("RGBA", img.size, col + (255,))
            pd = ImageDraw.Draw(pat)
            c2 = _col(rng)
            step = max(2, int(R * rng.uniform(.05, .1))) * _K
            checks = rng.random() < .6
            for k in range(-img.size[0], img.size[0], step * 2):
                pd.line([(k, 0), (k, img.size[1])], fill=c2 + (255,), width=max(1, step // 2))
                if checks:
                    pd.line([(0, k), (img.size[0], k)], fill=c2 + (255,), width=max(1, step // 2))
            m = Image.new("L", img.size, 0)
            for wing in wings:
                _draw(m).polygon(wing, fill=255)
            img.paste(pat, (0, 0), m)
        else:
            for wing in wings:
                d.polygon(wing, fill=col + (255,))
        kr = h * .5
        d.ellipse([nx - kr, ny - kr, nx + kr, ny + kr], fill=_shade(col, .8) + (255,))
    else:  # a collar: a band along the head's lower edge, sometimes a tag
        band = [head.point(t, rng.uniform(.95, 1.05)) for t in np.linspace(math.pi * .65, math.pi * 1.35, 12)]
        d.line(band, fill=col + (255,), width=max(2, int(R * rng.uniform(.06, .14))), joint="curve")
        if rng.random() < .5:
            tr = R * rng.uniform(.06, .12)
            d.ellipse([nx - tr, ny - tr * .5, nx + tr, ny + tr * 1.5], fill=_col(rng) + (255,), outline=out_col + (255,))


def _refill(img, canvas, bgk):
    return img  # corners uncovered by the rotation become transparent: fine (like a cut-out)


def scale_points(pts, k):
    """The points dict in SCENE units -> pixels at scale k (the same dict at 1)."""
    if k == 1:
        return pts
    out = dict(pts)
    for key in ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center", "left_brow", "right_brow"):
        if out[key] is not None:
            out[key] = (out[key][0] * k, out[key][1] * k)
    for key in ("left_eye_radius", "right_eye_radius"):
        out[key] = out[key] * k
    out["outline"] = [(x * k, y * k) for x, y in out["outline"]]
    return out


def rotate_points(pts, ang, cx, cy):
    a = math.radians(ang)
    c, s = math.cos(a), math.sin(a)

    def f(p):
        dx, dy = p[0] - cx, p[1] - cy
        return (cx + dx * c + dy * s, cy - dx * s + dy * c)
    out = dict(pts)
    for k in ("left_eye", "right_eye", "mouth_left", "mouth_right", "mouth_center", "left_brow", "right_brow"):
        if out[k] is not None:
            out[k] = f(out[k])
    out["outline"] = [f(p) for p in out["outline"]]
    return out


def _augment(rng, img):
    a = np.asarray(img).copy()
    rgb = a[..., :3].astype(np.float32)
    if rng.random() < .5:  # colour jitter
        rgb = rgb * rng.uniform(.8, 1.2, 3) + rng.uniform(-20, 20)
    if rng.random() < .25:
        rgb = rgb + rng.normal(0, rng.uniform(2, 10), rgb.shape)
    a[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
    img = Image.fromarray(a, "RGBA")
    if rng.random() < .3:
        img = img.filter(ImageFilter.GaussianBlur(float(rng.uniform(.5, 2.0)) * _K))
    if rng.random() < .25:  # JPEG artefacts on the colours (alpha kept)
        buf = io.BytesIO()
        img.convert("RGB").save(buf, "JPEG", quality=int(rng.integers(20, 80)))
        rgbj = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
        img = Image.merge("RGBA", rgbj.split() + (img.split()[3],))
    return img


def contact_sheet(path, scenes, n=24):
    """Writes n scenes (each (rgba image, points or None) from the iterator `scenes`) as a 6 x 4 sheet, the points
    marked: the eyes red and blue, the mouth's corners magenta and cyan, its centre yellow, the brows orange and
    light blue, the outline red, the mouth state written in the corner."""
    sheet = Image.new("RGB", (SCENE * 6, SCENE * ((n + 5) // 6)), (128, 128, 128))
    for i in range(n):
        im, p = next(scenes)
        bg = Image.new("RGBA", im.size, (200, 230, 200, 255))
        bg.alpha_composite(im)
        d = ImageDraw.Draw(bg)
        if p:
            for k, c in (("left_eye", (255, 0, 0)), ("right_eye", (0, 0, 255)), ("mouth_left", (255, 0, 255)),
                         ("mouth_right", (0, 255, 255)), ("mouth_center", (255, 255, 0)), ("left_brow", (255, 128, 0)),
                         ("right_brow", (0, 128, 255))):
                if p[k] is not None:
                    x, y = p[k]
                    d.ellipse([x - 3, y - 3, x + 3, y + 3], outline=c + (255,), width=2)
            d.line(p["outline"] + [p["outline"][0]], fill=(255, 0, 0, 255), width=1)
            d.text((4, 4), p["mouth"], fill=(0, 0, 0, 255))
        sheet.paste(bg.convert("RGB"), ((i % 6) * SCENE, (i // 6) * SCENE))
    sheet.save(path)


if __name__ == "__main__":  # a contact sheet with the points drawn: python draw.py out.png [seed] [--extras]
    import sys
    extras, mouths = "--extras" in sys.argv, "--mouths" in sys.argv
    argv = [a for a in sys.argv if a not in ("--extras", "--mouths")]
    rng = np.random.default_rng(int(argv[2]) if len(argv) > 2 else 0)
    contact_sheet(argv[1], (draw_scene(rng, extras=extras, mouths=mouths) for _ in iter(int, 1)))
