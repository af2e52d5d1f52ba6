"""Three more drawn styles for the character point finder (2026-12-04): side views, snowmen, line-art animals.

draw_styled(rng) -> (rgba uint8 HxWx4, points dict), the same points as draw.draw_scene's. The styles are the
kinds of picture the finder missed on (tools/character/README.md): none of them is drawn by draw_scene, so the
data and weights of its stages are unchanged by this file.

  profile:  a head seen from the side: a nose bump (a person), a long snout (a dog, a camel) or a beak (a bird)
            on the facing side; one eye drawn, the far one labelled where it would project, a little towards the
            nose; the mouth at the front under the nose or along the snout's lower edge; hair, an ear, a body.
  snowman:  a light ball of a head on one or two balls of body in the same colour, coal-dot eyes, a mouth of
            dots in a curve, a carrot nose, buttons down the body (dark dots below the face), a hat, stick arms.
  lineart:  an animal in outline only (white or a light fill, a thick dark line): a muzzle to one side with a
            big dark nose at its end, outlined eyes with pupils, floppy ears, spots, a tongue out of the mouth.

Hidden or far eyes are labelled as labels.json labels them: where they would project.
"""
import math

import numpy as np
from PIL import Image, ImageDraw

from draw import SCENE, Head, _augment, _col, _fill_shape, _mask, _shade, _skin, _to_img, rotate_points, \
    _arc_points, _noise_texture


def _background(rng):
    S = SCENE
    canvas = np.zeros((S, S, 4), np.float32)
    k = rng.choice(["white", "transparent", "colour", "noise"], p=[.4, .3, .2, .1])
    if k == "white":
        canvas[...] = (255, 255, 255, 255)
    elif k == "transparent":
        canvas[...] = (255, 255, 255, 0)
    elif k == "colour":
        canvas[..., :3] = _col(rng, False)
        canvas[..., 3] = 255
    else:
        canvas[..., :3] = np.array(_col(rng), np.float32) + _noise_texture(rng, S, int(rng.integers(2, 30)), 30)[..., None]
        canvas[..., 3] = 255
    return canvas


def _ellipse(d, c, rx, ry, **kw):
    d.ellipse([c[0] - rx, c[1] - ry, c[0] + rx, c[1] + ry], **kw)


def _eye(d, rng, c, r, kind, out_col, look):
    """A drawn eye at c: a dot, an outlined white oval with a pupil (looking to side `look`), or a closed line."""
    if kind == "dot":
        _ellipse(d, c, r * .8, r, fill=_col(rng, True) + (255,))
        if rng.random() < .5:
            _ellipse(d, (c[0] - r * .3, c[1] - r * .35), r * .25, r * .25, fill=(255, 255, 255, 255))
    elif kind == "oval":
        _ellipse(d, c, r * rng.uniform(.7, 1.0), r * rng.uniform(1.0, 1.4), fill=(255, 255, 255, 255), outline=out_col + (255,),
                 width=max(1, int(r * .2)))
        pr = r * rng.uniform(.35, .6)
        _ellipse(d, (c[0] + look * r * .35, c[1]), pr, pr * 1.1, fill=_col(rng, True) + (255,))
    else:
        d.line(_arc_points(c[0] - r, c[0] + r, c[1], r * rng.choice([-.6, .6]), 6), fill=out_col + (255,),
               width=max(2, int(r * .35)))


def _profile(rng):
    S = SCENE
    canvas = _background(rng)
    face = int(rng.choice([-1, 1]))  # the side the face points to (picture x)
    animal = rng.choice(["person", "snout", "beak"], p=[.4, .35, .25])
    R = float(rng.uniform(22, 70))
    cx = float(rng.uniform(R * 1.2, S - R * 1.2)) - face * R * .3
    cy = float(rng.uniform(R * 1.1, S - R * .9))
    head = Head(rng, cx, cy, R)
    head.kind, head.harm, head.egg = "ellipse", [], 0.0
    head.sx = R * rng.uniform(.85, 1.05)
    head.sy = R * rng.uniform(.95, 1.2)
    outline_w = int(rng.choice([0, 1, 2, 3, 4]) * max(.6, R / 60))
    out_col = _col(rng, True)
    skin = _skin(rng)
    shading = rng.choice(["flat", "flat", "gradient", "radial"])
    texture = float(rng.choice([0, 0, 8, 20]))
    img = _to_img(canvas)
    d = ImageDraw.Draw(img)
    if rng.random() < .5:  # a body or a neck and shoulders below
        top = cy + head.sy * rng.uniform(.6, .95)
        bw = R * rng.uniform(.8, 1.8)
        d.polygon([(cx - bw * .5, top), (cx + bw * .5, top), (cx + bw * 1.2, S + 5), (cx - bw * 1.2, S + 5)],
                  fill=(skin if rng.random() < .4 else _col(rng)) + (255,), outline=out_col + (255,))
    canvas = np.asarray(img, np.float32).copy()
    poly = head.polygon()
    # the front: a nose bump, a snout or a beak, attached on the facing side
    ey = cy - head.sy * rng.uniform(0.0, 0.35)
    fx = cx + face * head.sx  # the front edge at the head's middle
    front = []
    if animal == "person":
        ny = ey + R * rng.uniform(.15, .35)
        nl = R * rng.uniform(.12, .3)
        nx0 = cx + face * head.sx * math.sqrt(max(0, 1 - ((ny - cy) / head.sy) ** 2))
        front = [(nx0, ny - R * .2), (nx0 + face * nl, ny + R * .05), (nx0, ny + R * .12)]
        mouth_y = ny + R * rng.uniform(.2, .35)
        mfx = cx + face * head.sx * math.sqrt(max(0, 1 - ((mouth_y - cy) / head.sy) ** 2))
        mw = R * rng.uniform(.12, .25)
        m_front = (mfx - face * R * .03, mouth_y)
        m_back = (mfx - face * mw, mouth_y + R * rng.uniform(-.03, .03))
        # a chin below the mouth
        cyy = mouth_y + R * rng.uniform(.1, .2)
        front += [(mfx + face * R * .02, mouth_y - R * .05), (mfx + face * R * rng.uniform(.0, .08), cyy)]
    else:
        sl = R * (rng.uniform(.5, 1.3) if animal == "snout" else rng.uniform(.5, 1.1))
        sh = R * rng.uniform(.3, .6) if animal == "snout" else R * rng.uniform(.15, .35)
        sy0 = ey + R * rng.uniform(.0, .3)
        droop = R * rng.uniform(-.1, .5) if animal == "snout" else R * rng.uniform(-.05, .2)
        tip = (fx + face * sl, sy0 + droop + sh * .5)
        front = [(fx - face * R * .2, sy0 - sh * .3), (tip[0] - face * sh * .3, sy0 + droop), tip,
                 (tip[0] - face * sh * .2, sy0 + droop + sh), (fx - face * R * .1, sy0 + sh * 1.3)]
        mouth_y = sy0 + droop + sh * .75
        m_front = (tip[0] - face * sh * .25, mouth_y)
        m_back = (fx - face * R * rng.uniform(.05, .35), sy0 + sh * rng.uniform(.9, 1.2))
    # head and front in one fill (a beak in its own colour)
    m_head = _mask(poly)
    if animal != "beak":
        ImageDraw.Draw(m_head).polygon(front + [(cx, cy)], fill=255)
    _fill_shape(canvas, m_head, skin, rng, shading, texture)
    img = _to_img(canvas)
    d = ImageDraw.Draw(img)
    if rng.random() < .35:  # a patch of a second colour on the lower face (a penguin's, a fox's cheek)
        pc = _col(rng, False)
        _ellipse(d, (cx + face * head.sx * .2, cy + head.sy * .45), head.sx * .7, head.sy * .45, fill=pc + (255,))
    if outline_w:
        d.line(poly + [poly[0]], fill=out_col + (255,), width=outline_w, joint="curve")
    if animal == "beak":
        d.polygon(front, fill=(int(rng.integers(200, 256)), int(rng.integers(90, 200)), int(rng.integers(0, 60)), 255),
                  outline=out_col + (255,))
    elif outline_w:
        d.line(front, fill=out_col + (255,), width=outline_w, joint="curve")
    if animal == "snout" and rng.random() < .8:  # the nose at the snout's tip
        nr = R * rng.uniform(.08, .18)
        _ellipse(d, (front[2][0] - face * nr * .6, front[1][1] + nr * .6), nr, nr * .8, fill=_col(rng, True) + (255,))
    # mouth: a line from the front corner back (open: a dark wedge)
    mstate = str(rng.choice(["closed", "open"], p=[.75, .25]))
    mc = ((m_front[0] + m_back[0]) / 2, (m_front[1] + m_back[1]) / 2)
    lw = max(1, int(R * rng.uniform(.02, .05)))
    if mstate == "open":
        gap = R * rng.uniform(.05, .15)
        d.polygon([m_back, (m_front[0], m_front[1] - gap * .5), (m_front[0], m_front[1] + gap)], fill=(90, 20, 30, 255))
        mc = (mc[0], mc[1] + gap * .25)
    else:
        d.line([m_front, m_back], fill=(_col(rng, True) if rng.random() < .7 else (170, 60, 60)) + (255,), width=lw)
    # ear and hair (a person), behind the eye
    if animal == "person":
        ex_, ey_ = cx - face * head.sx * rng.uniform(.0, .25), cy + head.sy * rng.uniform(-.05, .15)
        er_ = R * rng.uniform(.13, .2)
        _ellipse(d, (ex_, ey_), er_ * .8, er_ * 1.3, fill=_shade(skin, .9) + (255,), outline=out_col + (255,),
                 width=max(1, outline_w))
        if rng.random() < .8:
            hcol = _col(rng)
            hp = [head.point(t, 1.06) for t in np.linspace(face * rng.uniform(.3, .7), -face * rng.uniform(1.9, 2.5), 24)]
            hp += [(cx - face * head.sx * .45, cy + head.sy * .15), (cx - face * head.sx * .15, cy - head.sy * .3),
                   (cx + face * head.sx * .45, cy - head.sy * rng.uniform(.45, .65))]
            d.polygon(hp, fill=hcol + (255,), outline=out_col + (255,))
    # eyes: the near one drawn, the far one towards the nose (hidden, or a sliver)
    er = R * rng.uniform(.06, .16)
    near = (cx + face * head.sx * rng.uniform(.35, .65), ey)
    ed = R * rng.uniform(.1, .3)
    far = (near[0] + face * ed, ey - R * rng.uniform(0, .04))
    kind = str(rng.choice(["dot", "oval", "closed"], p=[.35, .5, .15]))
    _eye(d, rng, near, er, kind, out_col, face)
    if rng.random() < .3 and animal != "person":  # the far eye's sliver past the snout's line
        _ellipse(d, far, er * .3, er * .7, fill=_col(rng, True) + (255,))
    brows = kind != "closed" and rng.random() < .35
    lb = rb = None
    if brows:
        by = ey - er * 1.4 - R * .06
        d.line([(near[0] - er, by), (near[0] + er, by - R * .03)], fill=_col(rng, True) + (255,), width=max(2, int(R * .05)))
        nb, fb = (near[0], by), (far[0], by - R * .02)
    left, right = sorted([near, far], key=lambda p: p[0])
    ml, mr = sorted([m_front, m_back], key=lambda p: p[0])
    if brows:
        lb, rb = sorted([nb, fb], key=lambda p: p[0])
    pts = dict(left_eye=left, right_eye=right, left_eye_radius=float(er), right_eye_radius=float(er * .5),
               mouth_left=ml, mouth_right=mr, mouth_center=mc, left_brow=lb, right_brow=rb, mouth=mstate,
               outline=head.outline16())
    return img, pts, (cx, cy)


def _snowman(rng):
    S = SCENE
    canvas = _background(rng)
    R = float(rng.uniform(12, 45))
    cx = float(rng.uniform(R * 2, S - R * 2))
    cy = float(rng.uniform(R * 1.8, S * .5))
    head = Head(rng, cx, cy, R)
    head.kind, head.harm, head.egg = "ellipse", [], 0.0
    head.sx, head.sy = R * rng.uniform(.9, 1.1), R * rng.uniform(.9, 1.05)
    out_col = _col(rng, True)
    outline_w = int(rng.choice([0, 1, 2, 3]) * max(.6, R / 40))
    snow = (int(rng.integers(225, 256)),) * 3 if rng.random() < .7 else _col(rng, False)
    snow = tuple(int(v) for v in snow)
    img = _to_img(canvas)
    d = ImageDraw.Draw(img)
    # body: one or two balls, then the head over them
    b1 = R * rng.uniform(1.3, 1.9)
    y1 = cy + head.sy + b1 * .85
    balls = [(cx, y1, b1)]
    if rng.random() < .5:
        b2 = b1 * rng.uniform(1.1, 1.4)
        balls.append((cx, y1 + b1 + b2 * .8, b2))
    for bx, by, br in balls[::-1]:
        _ellipse(d, (bx, by), br * rng.uniform(.9, 1.05), br, fill=snow + (255,), outline=out_col + (255,), width=outline_w)
    for k in range(int(rng.integers(0, 5))):  # buttons
        by = y1 - b1 * .5 + k * b1 * .4
        br = R * rng.uniform(.06, .12)
        _ellipse(d, (cx + rng.uniform(-.05, .05) * R, by), br, br, fill=_col(rng, True) + (255,))
    if rng.random() < .6:  # stick arms (one with a broom, sometimes)
        for s in (-1, 1):
            if rng.random() < .7:
                x0 = cx + s * b1 * .85
                d.line([(x0, y1 - b1 * .3), (x0 + s * R * rng.uniform(1, 2), y1 - b1 * rng.uniform(.3, 1.5))],
                       fill=(110, 70, 30, 255), width=max(2, int(R * .1)))
    canvas = np.asarray(img, np.float32).copy()
    poly = head.polygon()
    _fill_shape(canvas, _mask(poly), snow, rng, rng.choice(["flat", "radial"]), 0.0)
    img = _to_img(canvas)
    d = ImageDraw.Draw(img)
    if outline_w:
        d.line(poly + [poly[0]], fill=out_col + (255,), width=outline_w, joint="curve")
    if rng.random() < .5:  # a scarf under the head
        sc = _col(rng)
        d.line([head.point(t, 1.0) for t in np.linspace(math.pi * .7, math.pi * 1.3, 10)], fill=sc + (255,),
               width=max(3, int(R * .25)), joint="curve")
    yaw = float(rng.uniform(-.3, .3))
    ex = R * rng.uniform(.22, .4)
    ey = cy - head.sy * rng.uniform(.05, .35)
    off = yaw * R
    lx, rx = cx + off - ex * (1 + yaw * .5), cx + off + ex * (1 - yaw * .5)
    er = R * rng.uniform(.06, .13)
    ecol = _col(rng, True)
    for x in (lx, rx):
        _ellipse(d, (x, ey), er * rng.uniform(.8, 1.1), er, fill=ecol + (255,))
    mouth_y = ey + R * rng.uniform(.45, .7)
    mw = R * rng.uniform(.25, .45)
    mcx = cx + off * 1.1
    bend = R * rng.uniform(-.05, .2)
    n = int(rng.integers(3, 8))
    arc = _arc_points(mcx - mw, mcx + mw, mouth_y, bend, n - 1)
    dr = R * rng.uniform(.04, .08)
    solid = rng.random() < .25
    if solid:
        d.line(arc, fill=ecol + (255,), width=max(2, int(dr * 1.5)), joint="curve")
    else:
        for p in arc:
            _ellipse(d, p, dr, dr, fill=ecol + (255,))
    mc = arc[len(arc) // 2] if n % 2 == 1 else ((arc[n // 2 - 1][0] + arc[n // 2][0]) / 2, (arc[n // 2 - 1][1] + arc[n // 2][1]) / 2)
    # the carrot nose
    ny = (ey + mouth_y) / 2
    nl = R * rng.uniform(.3, .9)
    side = float(rng.choice([-1, 1]))
    nx = mcx + yaw * R * .2
    d.polygon([(nx, ny - R * .07), (nx, ny + R * .07), (nx + side * nl, ny + R * rng.uniform(-.05, .15))],
              fill=(int(rng.integers(220, 256)), int(rng.integers(100, 160)), 20, 255))
    if rng.random() < .7:  # a hat
        hcol = _col(rng, True) if rng.random() < .7 else _col(rng)
        tx, ty = head.point(rng.uniform(-.2, .2))
        hw = head.sx * rng.uniform(.6, .9)
        brim = ty + R * rng.uniform(.1, .35)
        h = R * rng.uniform(.6, 1.1)
        tilt = rng.uniform(-.3, .3) * hw
        d.polygon([(tx - hw * .6, brim), (tx - hw * .6 + tilt, brim - h), (tx + hw * .6 + tilt, brim - h), (tx + hw * .6, brim)],
                  fill=hcol + (255,), outline=out_col + (255,))
        d.rectangle([tx - hw, brim - R * .05, tx + hw, brim + R * .05], fill=hcol + (255,))
        if rng.random() < .5:
            d.rectangle([tx - hw * .6, brim - R * .3, tx + hw * .6, brim - R * .15], fill=_col(rng) + (255,))
    pts = dict(left_eye=(lx, ey), right_eye=(rx, ey), left_eye_radius=float(er), right_eye_radius=float(er),
               mouth_left=(mcx - mw, mouth_y), mouth_right=(mcx + mw, mouth_y), mouth_center=mc, left_brow=None,
               right_brow=None, mouth="closed", outline=head.outline16())
    return img, pts, (cx, cy)


def _lineart(rng):
    S = SCENE
    canvas = _background(rng)
    R = float(rng.uniform(30, 85))
    face = float(rng.choice([-1, 1]))
    yaw = float(rng.uniform(.15, .6)) * face  # a three-quarter view, the muzzle towards `face`
    cx = float(rng.uniform(R * 1.1, S - R * 1.1)) - face * R * .25
    cy = float(rng.uniform(R * 1.0, S - R * .9))
    head = Head(rng, cx, cy, R)
    head.kind, head.harm, head.egg = "ellipse", [], 0.0
    head.sx, head.sy = R * rng.uniform(.85, 1.1), R * rng.uniform(.8, 1.05)
    out_col = _col(rng, True)
    lw = max(2, int(R * rng.uniform(.04, .09)))
    fill = (255, 255, 255) if rng.random() < .6 else _shade(_skin(rng), 1.15)
    img = _to_img(canvas)
    d = ImageDraw.Draw(img)
    for s in (-1, 1):  # floppy or pointy ears, outlined
        bx, by = head.point(s * rng.uniform(.5, 1.0))
        if rng.random() < .6:
            ear = [(bx, by), (bx + s * R * rng.uniform(.2, .5), by + R * rng.uniform(.4, .9)), (bx - s * R * .1, by + R * .5)]
        else:
            ear = [(bx - s * R * .2, by), (bx + s * R * .2, by - R * rng.uniform(.4, .8)), (bx + s * R * .3, by + R * .1)]
        d.polygon(ear, fill=fill + (255,), outline=out_col + (255,))
        d.line(ear + [ear[0]], fill=out_col + (255,), width=lw, joint="curve")
    poly = head.polygon()
    # the muzzle: an ellipse towards the face side, lower than the eyes
    ey = cy - head.sy * rng.uniform(.05, .35)
    mr_ = R * rng.uniform(.35, .6)
    mcx0 = cx + yaw * R * rng.uniform(1.0, 1.6)
    mcy0 = ey + R * rng.uniform(.45, .8)
    d.polygon(poly, fill=fill + (255,))
    _ellipse(d, (mcx0, mcy0), mr_ * 1.3, mr_, fill=fill + (255,))
    d.line(poly + [poly[0]], fill=out_col + (255,), width=lw, joint="curve")
    # the muzzle's outer line (only the part outside the head)
    arc = [(mcx0 + mr_ * 1.3 * math.cos(a), mcy0 + mr_ * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 48)]
    inside = lambda p: ((p[0] - cx) / head.sx) ** 2 + ((p[1] - cy) / head.sy) ** 2 < .92
    seg = []
    for p in arc + [arc[0]]:
        if inside(p):
            if len(seg) > 1:
                d.line(seg, fill=out_col + (255,), width=lw, joint="curve")
            seg = []
        else:
            seg.append(p)
    if len(seg) > 1:
        d.line(seg, fill=out_col + (255,), width=lw, joint="curve")
    # cover the head's line inside the muzzle
    _ellipse(d, (mcx0, mcy0), mr_ * 1.3 - lw, mr_ - lw, fill=fill + (255,))
    # the nose at the muzzle's front
    nr = mr_ * rng.uniform(.25, .45)
    nose = (mcx0 + face * mr_ * rng.uniform(.6, 1.0), mcy0 - mr_ * rng.uniform(.2, .6))
    _ellipse(d, nose, nr * 1.2, nr, fill=_col(rng, True) + (255,))
    # the mouth under the nose, along the muzzle's bottom: back corner to front corner
    my = mcy0 + mr_ * rng.uniform(.25, .6)
    m_front = (nose[0] + face * nr * rng.uniform(-.5, .5), my - mr_ * rng.uniform(0, .2))
    m_back = (mcx0 - face * mr_ * rng.uniform(.6, 1.1), my - mr_ * rng.uniform(-.1, .2))
    d.line(_arc_points(*sorted([m_front[0], m_back[0]]), my, mr_ * rng.uniform(.0, .25), 8), fill=out_col + (255,),
           width=lw, joint="curve")
    d.line([(nose[0], nose[1] + nr), (m_front[0], my)], fill=out_col + (255,), width=max(1, lw // 2))
    mc = ((m_front[0] + m_back[0]) / 2, my + mr_ * .05)
    mstate = "closed"
    if rng.random() < .4:  # a tongue out of the mouth
        tw = mr_ * rng.uniform(.3, .5)
        tc = (mc[0] + rng.uniform(-.2, .2) * mr_, my + tw * 1.1)
        _ellipse(d, tc, tw, tw * 1.3, fill=(int(rng.integers(200, 256)), 120, 140, 255) if rng.random() < .6 else (255, 255, 255, 255),
                 outline=out_col + (255,), width=max(1, lw // 2))
        mstate = "open"
    for _ in range(int(rng.integers(0, 7))):  # spots on the muzzle (whisker dots)
        sp = (mcx0 + rng.uniform(-.8, .8) * mr_, mcy0 + rng.uniform(-.1, .5) * mr_)
        rr = max(1.0, R * rng.uniform(.015, .04))
        _ellipse(d, sp, rr * 1.5, rr, fill=out_col + (255,))
    # eyes: outlined ovals with pupils looking to the face side; the far one narrower, sometimes behind the muzzle
    ex = R * rng.uniform(.25, .4)
    er = R * rng.uniform(.1, .2)
    lx = cx + yaw * R * .6 - ex * (1 + yaw * .7)
    rx = cx + yaw * R * .6 + ex * (1 - yaw * .7)
    kind = str(rng.choice(["oval", "dot"], p=[.75, .25]))
    for i, x in enumerate((lx, rx)):
        farside = (face > 0 and i == 0) or (face < 0 and i == 1)
        if farside and abs(yaw) > .4 and rng.random() < .5:
            continue
        _eye(d, rng, (x, ey), er * (1 - abs(yaw) * .5 if farside else 1), kind, out_col, face)
    pts = dict(left_eye=(lx, ey), right_eye=(rx, ey), left_eye_radius=float(er), right_eye_radius=float(er),
               mouth_left=min(m_front, m_back), mouth_right=max(m_front, m_back), mouth_center=mc, left_brow=None,
               right_brow=None, mouth=mstate, outline=head.outline16())
    return img, pts, (cx, cy)


def draw_styled(rng):
    """One scene of one of the three styles (profile 40 %, snowman 25 %, lineart 35 %), rotated up to 12 degrees
    sometimes, augmented as draw_scene's are."""
    style = rng.choice(["profile", "snowman", "lineart"], p=[.4, .25, .35])
    img, pts, (cx, cy) = {"profile": _profile, "snowman": _snowman, "lineart": _lineart}[str(style)](rng)
    if rng.random() < .5:
        ang = float(rng.uniform(-12, 12))
        img = img.rotate(ang, resample=Image.BICUBIC, center=(cx, cy), fillcolor=None)
        pts = rotate_points(pts, ang, cx, cy)
    return _augment(rng, img), pts


def _outline_of(poly, cx, cy, n=16):
    """n points of a closed polygon around (cx, cy), at the angles draw.Head.outline16 uses (0 = up, clockwise):
    each the farthest crossing of the ray from the centre with the polygon's edges."""
    out = []
    for i in range(n):
        t = 2 * math.pi * i / n
        dx, dy = math.sin(t), -math.cos(t)
        best = 0.0
        for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
            ex, ey = x1 - x0, y1 - y0
            den = dx * ey - dy * ex
            if abs(den) < 1e-9:
                continue
            u = ((x0 - cx) * ey - (y0 - cy) * ex) / den  # along the ray
            v = ((x0 - cx) * dy - (y0 - cy) * dx) / den  # along the edge
            if u > best and 0 <= v <= 1:
                best = u
        out.append((cx + dx * best, cy + dy * best))
    return out


def _face_profile(rng):
    """A person's head from the side, drawn as cartoonists draw one: a face line down the front (forehead, brow,
    a nose that sticks out, lips, chin), the skull's curve behind, an ear in the middle, hair over the top and back,
    a side-view eye near the front; the mouth a short line back from the lips, well below the eye."""
    S = SCENE
    canvas = _background(rng)
    f = int(rng.choice([-1, 1]))  # the side the face points to
    R = float(rng.uniform(25, 80))  # half the head's height
    j = rng.uniform
    cx = float(j(R * .9, S - R * .9))
    cy = float(j(R * 1.0, S - R * .85))
    P = lambda X, Y: (cx + f * R * X, cy + R * Y)
    eye_y = j(-.25, -.02)
    nose_y = eye_y + j(.25, .4)
    mouth_y = nose_y + j(.15, .28)
    chin_y = min(.98, mouth_y + j(.22, .35))
    fr = j(.62, .8)  # the face line's distance in front of the centre
    nose = j(.1, .35)
    front = [P(fr - .2, -.9), P(fr - .05, -.6), P(fr + j(0, .06), eye_y - .12), P(fr - j(.02, .07), eye_y + .05),
             P(fr + nose, nose_y - j(0, .05)), P(fr + nose * j(.2, .6), nose_y + .08), P(fr - .01, nose_y + .1),
             P(fr + j(0, .05), mouth_y - .06), P(fr - .03, mouth_y), P(fr + j(-.02, .04), mouth_y + .06),
             P(fr - j(.05, .1), mouth_y + .14), P(fr + j(-.06, .04), chin_y - .06), P(fr - .1, chin_y),
             P(fr * .4, chin_y + .02)]
    back_w = j(.85, 1.05)
    back = [P(-back_w * math.sin(t), -.95 * math.cos(t) + .05) for t in np.linspace(0.15, 2.4, 14)]
    nape = P(-j(.3, .5), chin_y - .05)
    poly = front + [P(0, chin_y - .05), nape] + back[::-1]
    out_col = _col(rng, True)
    outline_w = int(rng.choice([0, 1, 2, 3, 4]) * max(.6, R / 60))
    skin = _skin(rng)
    img = _to_img(canvas)
    d = ImageDraw.Draw(img)
    if rng.random() < .6:  # a neck and shoulders
        d.polygon([P(-.35, chin_y - .2), P(fr * .5, chin_y - .05), P(fr * .45, 1.3), P(-.4, 1.3)],
                  fill=skin + (255,), outline=out_col + (255,))
        if rng.random() < .7:
            d.polygon([P(-1.3, 1.25), P(-.5, 1.05), P(fr * .6, 1.1), P(1.4, 1.35), P(1.6, 3), P(-1.6, 3)],
                      fill=_col(rng) + (255,), outline=out_col + (255,))
    canvas = np.asarray(img, np.float32).copy()
    _fill_shape(canvas, _mask(poly), skin, rng, rng.choice(["flat", "flat", "gradient"]), float(rng.choice([0, 0, 8])))
    img = _to_img(canvas)
    d = ImageDraw.Draw(img)
    if outline_w:
        d.line(poly + [poly[0]], fill=out_col + (255,), width=outline_w, joint="curve")
    lw = max(1, int(R * j(.015, .035)))
    # the ear, then the hair over the top and back of the skull
    ear = P(-j(.05, .25), eye_y + j(.1, .25))
    er_ = R * j(.1, .16)
    _ellipse(d, ear, er_ * .75, er_ * 1.25, fill=_shade(skin, .9) + (255,), outline=out_col + (255,), width=lw)
    if rng.random() < .85:
        hcol = _col(rng)
        hl = j(.3, 1.0)  # how far down the back the hair reaches
        hair = [P(fr - .15, -.95 + j(0, .2)), P(fr - .05, -.75 + j(0, .3))]  # the fringe
        hair += [P(fr * j(.1, .5), -.55), P(.0, -.4 + j(0, .2)), P(-.3, eye_y + .05), P(-.45, -.1 + hl * .6)]
        hair += [P(-back_w * 1.05 * math.sin(t), -1.0 * math.cos(t) + .05) for t in np.linspace(0.6 + hl * 1.4, 0.0, 10)]
        hair += [P(fr * .6, -1.05)]
        d.polygon(hair, fill=hcol + (255,), outline=out_col + (255,))
    # the eye, from the side: an almond open towards the front, the iris at the front; or a dot, or closed
    near = P(fr - j(.17, .32), eye_y)
    er = R * j(.06, .13)
    kind = str(rng.choice(["side", "dot", "closed"], p=[.6, .25, .15]))
    if kind == "side":
        d.polygon([(near[0] - f * er, near[1]), (near[0] + f * er * .2, near[1] - er * .7),
                   (near[0] + f * er * .6, near[1] - er * .2), (near[0] + f * er * .2, near[1] + er * .45)],
                  fill=(255, 255, 255, 255), outline=out_col + (255,))
        _ellipse(d, (near[0] + f * er * .3, near[1] - er * .05), er * .3, er * .45, fill=_col(rng, True) + (255,))
    else:
        _eye(d, rng, near, er * .8, "dot" if kind == "dot" else "closed", out_col, f)
    ed = R * j(.06, .2)
    far = (near[0] + f * ed, near[1] - R * j(0, .03))
    brows = kind != "closed" and rng.random() < .6
    lb = rb = None
    if brows:
        by = near[1] - er * 1.5
        d.line([(near[0] - f * er * 1.2, by + er * .2), (near[0] + f * er * .7, by - er * .1)], fill=_col(rng, True) + (255,),
               width=max(2, int(R * .03)))
        lb, rb = sorted([(near[0], by), (far[0], by - R * .01)], key=lambda p: p[0])
    # the mouth: from the lips' notch a short line back (open: a dark wedge)
    m_front = P(fr - .04, mouth_y)
    m_back = P(fr - j(.14, .26), mouth_y + j(-.01, .04))
    mstate = str(rng.choice(["closed", "open"], p=[.75, .25]))
    mc = ((m_front[0] + m_back[0]) / 2, (m_front[1] + m_back[1]) / 2)
    if mstate == "open":
        gap = R * j(.04, .1)
        d.polygon([m_back, (m_front[0], m_front[1] - gap * .4), (m_front[0], m_front[1] + gap)], fill=(90, 20, 30, 255))
        mc = (mc[0], mc[1] + gap * .25)
    else:
        d.line([m_front, m_back], fill=(out_col if rng.random() < .7 else (170, 60, 60)) + (255,), width=lw)
    left, right = sorted([near, far], key=lambda p: p[0])
    ml, mr = sorted([m_front, m_back], key=lambda p: p[0])
    pts = dict(left_eye=left, right_eye=right, left_eye_radius=float(er), right_eye_radius=float(er * .5),
               mouth_left=ml, mouth_right=mr, mouth_center=mc, left_brow=lb, right_brow=rb, mouth=mstate,
               outline=_outline_of(poly, *P(0, 0)))
    return img, pts, (cx, cy)


def draw_face_profile(rng):
    """One person's head from the side (_face_profile), rotated up to 12 degrees sometimes and augmented as
    draw_styled's scenes are. Not one of draw_styled's choices, so its scenes are as they were."""
    img, pts, (cx, cy) = _face_profile(rng)
    if rng.random() < .5:
        ang = float(rng.uniform(-12, 12))
        img = img.rotate(ang, resample=Image.BICUBIC, center=(cx, cy), fillcolor=None)
        pts = rotate_points(pts, ang, cx, cy)
    return _augment(rng, img), pts


if __name__ == "__main__":  # a contact sheet with the points drawn: python draw_styles.py out.png [seed]
    import sys
    from draw import contact_sheet
    faces = "--faces" in sys.argv
    argv = [a for a in sys.argv if a != "--faces"]
    rng = np.random.default_rng(int(argv[2]) if len(argv) > 2 else 0)
    contact_sheet(argv[1], ((draw_face_profile if faces else draw_styled)(rng) for _ in iter(int, 1)))
