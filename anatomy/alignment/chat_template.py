"""A chat template: messages with roles -> one token sequence, and which of its tokens the assistant wrote.

Taught in: 20_instruction_tuning.  No shapes: messages in, ids (T,) and a mask (T,) out.
A chat model reads one flat sequence; the template marks each turn with a role token and closes it with an
end-of-turn token, so the model learns where its answer starts and when to stop. CHAT_TEMPLATE is the same
rule written in Jinja, for Hugging Face's `tokenizer.apply_chat_template` (tests/test_alignment.py checks the
two agree token for token); its {% generation %} block marks the assistant's tokens, as our mask does.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

ROLES = ("system", "user", "assistant")
END_OF_TURN = "<|end|>"
SPECIAL_TOKENS = tuple(f"<|{role}|>" for role in ROLES) + (END_OF_TURN,)
CHAT_TEMPLATE = ("{% for message in messages %}<|{{ message['role'] }}|>"
                 "{% if message['role'] == 'assistant' %}{% generation %}{{ message['content'] }}<|end|>"
                 "{% endgeneration %}{% else %}{{ message['content'] }}<|end|>{% endif %}{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def check_messages(messages: Any) -> list[dict[str, str]]:
    """Each message a dict with a known 'role' and a str 'content' free of special tokens; an assistant's not empty."""
    if not isinstance(messages, (list, tuple)) or not messages:
        raise ValueError(f"messages must be a non-empty list of {{'role': ..., 'content': ...}} dicts, got {messages!r}")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or set(message) != {"role", "content"}:
            raise ValueError(f"messages[{i}] must be a dict with exactly the keys 'role' and 'content', got {message!r}")
        role, content = message["role"], message["content"]
        if role not in ROLES:
            raise ValueError(f"messages[{i}]['role'] must be one of {ROLES}, got {role!r}")
        if not isinstance(content, str):
            raise TypeError(f"messages[{i}]['content'] must be a str, got {type(content).__name__}")
        if role == "assistant" and not content.strip():
            raise ValueError(f"messages[{i}] is an empty assistant turn: there is nothing to learn from it; "
                             "give the answer, or end the conversation with add_generation_prompt=True instead")
        inside = [token for token in SPECIAL_TOKENS if token in content]
        if inside:
            raise ValueError(f"messages[{i}]['content'] contains the special token(s) {inside}: a message could "
                             "then end a turn or play another role; remove them from the text")
    return list(messages)


def chat_segments(messages: Sequence[dict[str, str]], add_generation_prompt: bool = False) -> list[tuple[str, bool]]:
    """(text, written by the assistant) pieces that concatenate to the rendered chat. The assistant's
    content and its end-of-turn token are its own (the model must learn to stop); its role token is not."""
    segments = []
    for message in check_messages(messages):
        segments.append((f"<|{message['role']}|>", False))
        segments.append((message["content"] + END_OF_TURN, message["role"] == "assistant"))
    if add_generation_prompt:
        segments.append(("<|assistant|>", False))
    return segments


def render_chat(messages: Sequence[dict[str, str]], add_generation_prompt: bool = False) -> str:
    """The chat as one string, as CHAT_TEMPLATE renders it."""
    return "".join(text for text, _ in chat_segments(messages, add_generation_prompt))


def encode_chat(encode: Callable[[str], list[int]], messages: Sequence[dict[str, str]],
                add_generation_prompt: bool = False) -> tuple[list[int], list[bool]]:
    """Token ids of the rendered chat and, per token, whether the assistant wrote it. `encode` is a tokenizer's
    text -> ids that keeps SPECIAL_TOKENS whole (e.g. ByteLevelBPE(...).encode): pieces split at special
    tokens encode as the whole string does."""
    if not callable(encode):
        raise TypeError(f"encode must be a tokenizer's encode (str -> list of ids), got {type(encode).__name__}")
    ids: list[int] = []
    mask: list[bool] = []
    for text, assistant in chat_segments(messages, add_generation_prompt):
        piece = encode(text)
        ids += piece
        mask += [assistant] * len(piece)
    return ids, mask
