"""Draw the series' own architecture diagrams as plain SVG: python images/make_diagrams.py

Each diagram is a column of boxes read bottom to top (as in the paper), with arrows between
them and residual connections drawn around the side. No published figure is copied.
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
BOX_W, BOX_H, GAP = 190, 34, 26
COLORS = {
    "attn": "#fde2b5", "ffn": "#c9e4f6", "norm": "#f3f3a6", "embed": "#f7c9c9",
    "io": "#ffffff", "linear": "#dcd3f0", "op": "#e6e6e6",
}


class Column:
    """A stack of boxes, bottom to top, centred on x; remembers where each box is."""

    def __init__(self, x: float, bottom: float) -> None:
        self.x, self.y, self.parts, self.boxes = x, bottom, [], []

    def add(self, label: str, kind: str = "op", width: float = BOX_W, arrow: bool = True) -> int:
        top = self.y - BOX_H
        if self.boxes and arrow:
            self.parts.append(line(self.x, self.y + GAP, self.x, self.y, head=True))
        self.parts.append(box(self.x - width / 2, top, width, BOX_H, label, COLORS[kind]))
        self.boxes.append((self.x - width / 2, top, width))
        self.y = top - GAP
        return len(self.boxes) - 1

    def skip(self, source: int, target: int, side: float = 1) -> None:
        """A residual arrow from below box `source` to the side of box `target`."""
        sx, sy, sw = self.boxes[source]
        tx, ty, tw = self.boxes[target]
        start_y, edge = sy + BOX_H + GAP / 2, self.x + side * (BOX_W / 2 + 22)
        end_x = self.x + side * tw / 2
        self.parts.append(f'<path d="M{self.x},{start_y} H{edge} V{ty + BOX_H / 2} H{end_x}" '
                          f'fill="none" stroke="#555" stroke-width="1.5" marker-end="url(#head)"/>')

    def middle(self, index: int) -> tuple[float, float]:
        x, y, w = self.boxes[index]
        return x + w / 2, y + BOX_H / 2


def box(x: float, y: float, w: float, h: float, label: str, fill: str) -> str:
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="7" fill="{fill}" stroke="#333"/>'
            f'<text x="{x + w / 2}" y="{y + h / 2 + 5}" text-anchor="middle">{label}</text>')


def line(x1: float, y1: float, x2: float, y2: float, head: bool = False, dash: bool = False) -> str:
    style = ' stroke-dasharray="5,4"' if dash else ""
    marker = ' marker-end="url(#head)"' if head else ""
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#555" stroke-width="1.5"{style}{marker}/>'


def text(x: float, y: float, label: str, size: int = 14, weight: str = "normal") -> str:
    return f'<text x="{x}" y="{y}" text-anchor="middle" font-size="{size}" font-weight="{weight}">{label}</text>'


def frame(x: float, y: float, w: float, h: float, label: str) -> str:
    return (f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="12" fill="none" stroke="#888" '
            f'stroke-dasharray="6,4"/>' + text(x + w - 22, y + 20, label, 13, "bold"))


def save(name: str, width: int, height: int, parts: list[str]) -> None:
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="14">'
           '<defs><marker id="head" markerWidth="9" markerHeight="9" refX="8" refY="4.5" orient="auto">'
           '<path d="M0,0 L9,4.5 L0,9 z" fill="#555"/></marker></defs>'
           f'<rect width="{width}" height="{height}" fill="white"/>' + "".join(parts) + "</svg>\n")
    (HERE / f"{name}.svg").write_text(svg)


def sublayer_column(x: float, bottom: float, sublayers: list[tuple[str, str]], pre_norm: bool) -> Column:
    """Input, then for each sublayer: [norm] sublayer add [norm], with a residual around it."""
    col = Column(x, bottom)
    col.add("x (B, T, D)", "io")
    for label, kind in sublayers:
        first = col.add("LayerNorm", "norm") if pre_norm else col.add(label, kind)
        if pre_norm:
            col.add(label, kind)
        add = col.add("Add (+ residual)", "op")
        col.skip(first, add)
        if not pre_norm:
            col.add("LayerNorm", "norm")
    col.add("output (B, T, D)", "io")
    return col


def encoder_decoder() -> None:
    enc, dec = Column(170, 350), Column(480, 350)
    enc.add("source tokens", "io")
    enc.add("Embeddings + positions", "embed")
    enc.add("Encoder layer × N", "attn")
    enc.add("memory (B, Ts, D)", "io")
    dec.add("target tokens (shifted right)", "io", width=220)
    dec.add("Embeddings + positions", "embed")
    dec_layer = dec.add("Decoder layer × N", "attn")
    dec.add("Linear → vocabulary", "linear")
    dec.add("softmax: next token", "io")
    mx, my = enc.middle(3)
    dx, dy = dec.middle(dec_layer)
    parts = enc.parts + dec.parts + [
        f'<path d="M{mx + BOX_W / 2},{my} H{(mx + dx) / 2} V{dy} H{dx - BOX_W / 2}" fill="none" '
        'stroke="#c0392b" stroke-width="2" marker-end="url(#head)"/>',
        text((mx + dx) / 2, my - 10, "cross-attention", 12),
        text(170, 36, "Encoder", 18, "bold"), text(480, 36, "Decoder", 18, "bold"),
    ]
    save("encoder_decoder", 650, 370, parts)


def encoder_layer() -> None:
    col = sublayer_column(200, 520, [("Multi-head self-attention", "attn"), ("Feed-forward", "ffn")],
                          pre_norm=False)
    save("encoder_layer", 420, 540, col.parts + [text(200, 30, "Encoder layer (post-LN, as BERT)", 16, "bold")])


def attention_ops() -> None:
    col = Column(300, 470)
    col.add("Q (…, Tq, Dh)      K (…, Tk, Dh)", "io", width=300)
    col.add("MatMul: Q Kᵀ → (…, Tq, Tk)", "op", width=260)
    col.add("Scale: ÷ √Dh", "op")
    col.add("Mask (optional): False → −∞", "op", width=240)
    col.add("Softmax over keys", "op")
    col.add("MatMul with V (…, Tk, Dv)", "op", width=240)
    col.add("output (…, Tq, Dv)", "io")
    save("attention_ops", 600, 490, col.parts + [text(300, 30, "Scaled dot-product attention", 16, "bold")])


def multi_head() -> None:
    parts = [text(330, 30, "Multi-head attention", 16, "bold")]
    for i, name in enumerate(["query", "key", "value"]):
        x = 130 + i * 200
        parts += [box(x - 70, 500, 140, BOX_H, name, COLORS["io"]), line(x, 500, x, 466, head=True),
                  box(x - 70, 432, 140, BOX_H, f"{name[0]}_proj", COLORS["linear"]),
                  line(x, 432, x, 398, head=True),
                  box(x - 80, 364, 160, BOX_H, "split into H heads", COLORS["op"]), line(x, 364, 330, 318, head=True)]
    for k in range(3):  # stacked attention boxes: one per head
        parts.append(box(190 - 8 * k, 250 + 8 * k, 280, 68, "", COLORS["attn"]))
    parts += [text(326, 292, "scaled dot-product attention", 14), text(326, 310, "× H heads in parallel", 12),
              line(330, 250, 330, 214, head=True), box(220, 180, 220, BOX_H, "merge heads (concat)", COLORS["op"]),
              line(330, 180, 330, 146, head=True), box(260, 112, 140, BOX_H, "out_proj", COLORS["linear"]),
              line(330, 112, 330, 78, head=True), box(240, 44, 180, BOX_H, "output (B, Tq, D)", COLORS["io"])]
    save("multi_head", 660, 560, parts)


def pre_post_ln() -> None:
    post = sublayer_column(170, 400, [("Sublayer", "attn")], pre_norm=False)
    pre = sublayer_column(470, 400, [("Sublayer", "attn")], pre_norm=True)
    parts = post.parts + pre.parts + [
        text(170, 40, "Post-LN (paper, BERT)", 16, "bold"), text(470, 40, "Pre-LN (GPT-2, most LLMs)", 16, "bold"),
        text(170, 430, "LayerNorm after the residual add", 12), text(470, 430, "residual path stays un-normalised", 12)]
    save("pre_post_ln", 640, 450, parts)


def decoder_layer() -> None:
    col = sublayer_column(230, 760, [("Masked self-attention", "attn"), ("Cross-attention", "attn"),
                                     ("Feed-forward", "ffn")], pre_norm=False)
    cx, cy = col.middle(4)
    parts = col.parts + [
        box(440, cy - BOX_H / 2, 170, BOX_H, "encoder memory", COLORS["io"]),
        line(440, cy, cx + BOX_W / 2 + 2, cy, head=True),
        text(525, cy - 24, "keys and values", 12),
        text(250, 30, "Decoder layer (post-LN, as the paper)", 16, "bold")]
    save("decoder_layer", 640, 780, parts)


if __name__ == "__main__":
    for draw in (encoder_decoder, encoder_layer, attention_ops, multi_head, pre_post_ln, decoder_layer):
        draw()
    print("wrote", ", ".join(sorted(p.name for p in HERE.glob("*.svg"))))
