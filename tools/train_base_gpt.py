"""Pre-train and save notebook 20's base GPT: python -m tools.train_base_gpt (`make base-gpt`; 3 min 54 s
measured alone on two CPU cores, 224 s of it training).

A character GPT (anatomy.alignment.base_gpt: 4 layers, width 128, a context of 192) pre-trained on the
standard library's docstrings, 09's training reviews and 15's Korean training text, then written with its
characters and the record of the run (held-out loss per source, the unigram baseline, the seconds it took)
to anatomy/data/base_gpt, which notebook 20 and tests/test_base_gpt.py load. The corpus text is never saved.
"""
from __future__ import annotations

from anatomy.alignment.base_gpt import pretrain_base_gpt, save_base_gpt


def main() -> None:
    model, tokenizer, record = pretrain_base_gpt()
    save_base_gpt(model, tokenizer, record)
    for name, loss in record["held_out_loss"].items():
        print(f"{name:10} held-out loss {loss:.3f} nats per character (unigram {record['unigram_loss'][name]:.3f})")
    print(f"{record['steps']} steps in {record['seconds']:.0f} s on {record['threads']} threads; "
          f"{tokenizer.vocab_size} ids ({len(tokenizer.characters)} characters + 6 reserved)")


if __name__ == "__main__":
    main()
