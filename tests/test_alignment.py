"""anatomy.alignment against the libraries that define each piece, on tiny random models (seconds each):
the chat template against transformers' apply_chat_template (the same Jinja template), the assistant-only
SFT loss against trl's SFTTrainer(assistant_only_loss=True), LoRA against peft's LoraConfig on the Hugging
Face GPT-2 that holds our GPT's weights, DPO against trl's DPOTrainer; then every bad input of issue #41.

trl 1.x has no standalone loss functions: its SFT and DPO losses live in SFTTrainer.compute_loss and
DPOTrainer._compute_loss. So each comparison builds the trainer on a two-example dataset, lets trl tokenize
it (from the chat template) and collate one batch, and calls trainer.compute_loss on that batch: trl's labels,
completion masks, loss, logged rewards and gradients are compared with ours on the same tokens. trl 1.x
defaults to bf16=True (its reference model then runs in bfloat16, off by about 1e-2 in a log-probability),
so each trainer is set to bf16=False: the comparison is float32 against float32.
"""
from __future__ import annotations

import copy
import sys
import tempfile

import pytest
import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from anatomy.alignment import (CHAT_TEMPLATE, END_OF_TURN, SPECIAL_TOKENS, LoRALinear, add_lora, chat_batch,
                               check_pairs, dpo_loss, encode_chat, frozen_reference, lora_layers, merge_lora,
                               preference_loss, render_chat, sft_labels, sft_loss, unmerge_lora)
from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.tokenizers.bpe_reference import hf_fast_tokenizer
from anatomy.weights.gpt2_weights import gpt_from_gpt2

transformers.logging.set_verbosity_error()
PAD = "<|pad|>"
TEXTS = ["Write 3 March 2021 as an ISO date: 2021-03-03. 2021년 3월 3일은 2021-03-03이다.",
         "Sentiment of 'The movie was great.' in one word: positive. negative. Reverse 'abc': cba."]
CHATS = [
    [{"role": "system", "content": "Answer in one word."},
     {"role": "user", "content": "Sentiment: The movie was great."}, {"role": "assistant", "content": "positive"}],
    [{"role": "user", "content": "2021년 3월 3일 to ISO"}, {"role": "assistant", "content": "2021-03-03"},
     {"role": "user", "content": "Reverse 'abc'."}, {"role": "assistant", "content": "cba"}],
]
PAIRS = [([{"role": "user", "content": "Sentiment: The movie was great."}], "positive", "negative, I think"),
         ([{"role": "user", "content": "2021년 3월 3일 to ISO"}], "2021-03-03", "2021-03-30")]
LORA_TARGETS = {"self_attn.out_proj": "attn.c_proj", "feed_forward.linear_1": "mlp.c_fc"}  # ours -> GPT-2's


@pytest.fixture(scope="module")
def bpe() -> ByteLevelBPE:
    return ByteLevelBPE.train(TEXTS, 300, [*SPECIAL_TOKENS, PAD])


@pytest.fixture(scope="module")
def hf_tokenizer(bpe) -> PreTrainedTokenizerFast:
    """Hugging Face's fast tokenizer holding our vocabulary and merges, with CHAT_TEMPLATE as its chat template."""
    return hf_fast_tokenizer(bpe, pad_token=PAD, eos_token=END_OF_TURN, chat_template=CHAT_TEMPLATE)


def tiny_gpt2(bpe, seed: int) -> GPT2LMHeadModel:
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=bpe.vocab_size, n_embd=16, n_layer=2, n_head=2, n_positions=64,
                        initializer_range=0.2, bos_token_id=None, eos_token_id=bpe.token_to_id(END_OF_TURN),
                        pad_token_id=bpe.token_to_id(PAD), attn_implementation="eager")
    return GPT2LMHeadModel(config).eval()


# --- the chat template ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("generation_prompt", [False, True])
def test_our_chat_template_equals_apply_chat_template_token_for_token(bpe, hf_tokenizer, generation_prompt):
    for chat in CHATS + [chat[:1] + [{"role": "user", "content": "Reverse 'dog'."}] for chat in CHATS]:
        ours_ids, ours_mask = encode_chat(bpe.encode, chat, add_generation_prompt=generation_prompt)
        theirs = hf_tokenizer.apply_chat_template(chat, tokenize=True, return_dict=True, return_assistant_tokens_mask=True,
                                                  add_generation_prompt=generation_prompt)
        assert ours_ids == theirs["input_ids"]
        assert [int(m) for m in ours_mask] == theirs["assistant_masks"]  # the {% generation %} block
        assert render_chat(chat, generation_prompt) == hf_tokenizer.apply_chat_template(
            chat, tokenize=False, add_generation_prompt=generation_prompt)


# --- the assistant-only SFT loss ------------------------------------------------------------------------------
def test_assistant_only_loss_equals_trl_sft_trainer_on_one_batch(bpe, hf_tokenizer):
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer
    hf = tiny_gpt2(bpe, seed=0)
    ours = gpt_from_gpt2(hf)
    with tempfile.TemporaryDirectory() as folder:
        args = SFTConfig(output_dir=folder, assistant_only_loss=True, report_to="none", use_cpu=True,
                         per_device_train_batch_size=2, disable_tqdm=True, bf16=False)  # float32, as ours
        trainer = SFTTrainer(model=hf, args=args, train_dataset=Dataset.from_list([{"messages": c} for c in CHATS]),
                             processing_class=hf_tokenizer)
        batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(CHATS))])
        hf.eval()
        theirs = trainer.compute_loss(hf, dict(batch))
    input_ids, attention_mask, assistant_mask = chat_batch([encode_chat(bpe.encode, c) for c in CHATS],
                                                           bpe.token_to_id(PAD))
    labels = sft_labels(input_ids, assistant_mask)
    assert torch.equal(input_ids, batch["input_ids"]) and torch.equal(labels, batch["labels"])
    ours_loss = sft_loss(ours(input_ids, attention_mask=attention_mask).logits, labels)
    assert abs(ours_loss.item() - theirs.item()) <= 1e-6
    everything = sft_loss(ours(input_ids, attention_mask=attention_mask).logits,
                          input_ids.masked_fill(attention_mask == 0, -100))
    assert abs(everything.item() - theirs.item()) > 1e-3  # the mask matters on this batch


# --- LoRA -----------------------------------------------------------------------------------------------------
def peft_on_gpt2(hf, r: int, alpha: float):
    from peft import LoraConfig, get_peft_model
    config = LoraConfig(r=r, lora_alpha=alpha, lora_dropout=0.0, target_modules=list(LORA_TARGETS.values()),
                        fan_in_fan_out=True)  # GPT-2's Conv1D stores (in, out)
    return get_peft_model(hf, config)


def peft_layer(peft_model, ours_name: str):
    """peft's LoRA layer for our 'layers.i.<target>'."""
    _, i, target = ours_name.split(".", 2)
    return peft_model.base_model.model.transformer.h[int(i)].get_submodule(LORA_TARGETS[target])


def test_a_fresh_lora_changes_nothing_as_peft_s_does(bpe):
    hf = tiny_gpt2(bpe, seed=1)
    ours = gpt_from_gpt2(hf)
    ids = torch.tensor([bpe.encode(TEXTS[0])[:40]])
    before_ours, before_hf = ours(ids).logits, hf(ids).logits
    add_lora(ours, list(LORA_TARGETS), r=4, alpha=8)
    peft_model = peft_on_gpt2(hf, r=4, alpha=8)
    assert torch.equal(ours(ids).logits, before_ours)  # B = 0: W x + 0
    assert torch.equal(peft_model(input_ids=ids).logits, before_hf)
    for name, module in ours.named_modules():
        if isinstance(module, LoRALinear):
            assert not module.lora_B.any() and not peft_layer(peft_model, name).lora_B["default"].weight.any()


@pytest.mark.parametrize("r, alpha", [(4, 8), (2, 3.0)])
def test_lora_outputs_merged_weights_and_trainable_parameters_equal_peft(bpe, r, alpha):
    hf = tiny_gpt2(bpe, seed=2)  # both in float64: float32 alone differs by ~1e-6 in logits of size ~1 (rounding)
    ours = add_lora(gpt_from_gpt2(hf).double(), list(LORA_TARGETS), r=r, alpha=alpha)
    peft_model = peft_on_gpt2(hf, r=r, alpha=alpha).double()
    torch.manual_seed(3)
    with torch.no_grad():
        for name, module in ours.named_modules():
            if isinstance(module, LoRALinear):
                module.lora_B.normal_(std=0.5)  # as after training: the update is not zero
                theirs = peft_layer(peft_model, name)
                theirs.lora_A["default"].weight.copy_(module.lora_A)  # (r, I) both
                theirs.lora_B["default"].weight.copy_(module.lora_B)  # (O, r) both
    ids = torch.tensor([bpe.encode(TEXTS[1])[:40]])
    assert (ours(ids).logits - peft_model(input_ids=ids).logits).abs().max() <= 1e-6
    ours_trainable = sorted((tuple(p.shape), p.numel()) for p in ours.parameters() if p.requires_grad)
    theirs_trainable = sorted((tuple(p.shape), p.numel()) for p in peft_model.parameters() if p.requires_grad)
    assert ours_trainable == theirs_trainable
    merge_lora(ours)
    merged = peft_model.merge_and_unload()
    for name, module in ours.named_modules():
        if isinstance(module, LoRALinear):
            _, i, target = name.split(".", 2)
            theirs = merged.transformer.h[int(i)].get_submodule(LORA_TARGETS[target]).weight.T  # Conv1D (I, O) -> (O, I)
            assert (module.base.weight - theirs).abs().max() <= 1e-6


def test_merge_then_unmerge_restores_the_weights_and_keeps_the_outputs(bpe):
    ours = gpt_from_gpt2(tiny_gpt2(bpe, seed=4))
    original = {name: p.clone() for name, p in ours.state_dict().items()}
    add_lora(ours, ["self_attn.q_proj", "self_attn.v_proj"], r=2, alpha=4)
    with torch.no_grad():
        for layer in lora_layers(ours):
            layer.lora_B.normal_()
    ids = torch.tensor([bpe.encode(TEXTS[0])[:30]])
    adapted = ours(ids).logits
    merge_lora(ours)
    assert (ours(ids).logits - adapted).abs().max() <= 1e-5
    assert all(not torch.equal(layer.base.weight, original[name.removesuffix(".base") + ".weight"])
               for name, layer in ((n + ".base", m) for n, m in ours.named_modules() if isinstance(m, LoRALinear)))
    unmerge_lora(ours)
    for name, module in ours.named_modules():
        if isinstance(module, LoRALinear):
            assert (module.base.weight - original[name + ".weight"]).abs().max() <= 1e-6
    assert (ours(ids).logits - adapted).abs().max() <= 1e-5


def test_only_the_lora_matrices_train_and_they_are_under_the_full_count(bpe):
    ours = add_lora(gpt_from_gpt2(tiny_gpt2(bpe, seed=5)), ["self_attn.q_proj"], r=2, alpha=2)
    trainable = {name for name, p in ours.named_parameters() if p.requires_grad}
    assert trainable == {f"layers.{i}.self_attn.q_proj.lora_{m}" for i in range(2) for m in "AB"}


# --- DPO ------------------------------------------------------------------------------------------------------
def pair_batches(bpe):
    pad = bpe.token_to_id(PAD)
    chosen = chat_batch([encode_chat(bpe.encode, p + [{"role": "assistant", "content": c}]) for p, c, _ in PAIRS], pad)
    rejected = chat_batch([encode_chat(bpe.encode, p + [{"role": "assistant", "content": r}]) for p, _, r in PAIRS], pad)
    return chosen, rejected


def gpt2_gradient(hf, ours_name: str) -> torch.Tensor:
    """The gradient of HF GPT-2's weight that holds our parameter `ours_name`, in our layout."""
    h = hf.transformer.h
    simple = {"token_embeddings.weight": hf.transformer.wte.weight, "position_embeddings.weight": hf.transformer.wpe.weight,
              "final_norm.weight": hf.transformer.ln_f.weight, "final_norm.bias": hf.transformer.ln_f.bias}
    if ours_name in simple:
        return simple[ours_name].grad
    _, i, rest = ours_name.split(".", 2)
    block = h[int(i)]
    module, _, kind = rest.rpartition(".")
    if module in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"):
        grad = getattr(block.attn.c_attn, kind).grad
        grad = grad.T if kind == "weight" else grad
        return grad.chunk(3, dim=0)["qkv".index(module[-6])]
    theirs = {"self_attn.out_proj": block.attn.c_proj, "feed_forward.linear_1": block.mlp.c_fc,
              "feed_forward.linear_2": block.mlp.c_proj, "layer_norm_1": block.ln_1, "layer_norm_2": block.ln_2}[module]
    grad = getattr(theirs, kind).grad
    return grad.T if kind == "weight" and "norm" not in module else grad


def test_dpo_loss_rewards_and_gradients_equal_trl_dpo_trainer(bpe, hf_tokenizer):
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer
    beta = 0.1
    hf, hf_reference = tiny_gpt2(bpe, seed=6), tiny_gpt2(bpe, seed=7)  # a reference unlike the policy: rewards not 0
    policy, reference = gpt_from_gpt2(hf), frozen_reference(gpt_from_gpt2(hf_reference))
    data = Dataset.from_list([{"prompt": p, "chosen": [{"role": "assistant", "content": c}],
                               "rejected": [{"role": "assistant", "content": r}]} for p, c, r in PAIRS])
    with tempfile.TemporaryDirectory() as folder:
        args = DPOConfig(output_dir=folder, beta=beta, report_to="none", use_cpu=True, per_device_train_batch_size=2,
                         disable_tqdm=True, bf16=False)  # trl's default bf16=True runs the reference model in bfloat16
        trainer = DPOTrainer(model=hf, ref_model=hf_reference, args=args, train_dataset=data,
                             processing_class=hf_tokenizer)
        batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(PAIRS))])
        trainer.model.eval()
        theirs = trainer.compute_loss(trainer.model, dict(batch))
        theirs.backward()
        logged = {key: values[-1] for key, values in trainer._metrics["eval"].items()}
    chosen, rejected = pair_batches(bpe)
    width = batch["input_ids"].size(1)  # trl pads chosen and rejected to one length; padding changes no log-prob
    for ours_part, rows in ((chosen, slice(0, 2)), (rejected, slice(2, 4))):
        ids, _, answer = (torch.nn.functional.pad(t, (0, width - t.size(1)), value=v)
                          for t, v in zip(ours_part, (bpe.token_to_id(PAD), 0, False)))
        assert torch.equal(ids, batch["input_ids"][rows]) and torch.equal(answer.long(), batch["completion_mask"][rows])
    loss, chosen_rewards, rejected_rewards = preference_loss(policy, reference, chosen, rejected, beta)
    loss.backward()
    assert abs(loss.item() - theirs.item()) <= 1e-6
    assert abs(chosen_rewards.mean().item() - logged["rewards/chosen"]) <= 1e-6  # trl logs the batch means
    assert abs(rejected_rewards.mean().item() - logged["rewards/rejected"]) <= 1e-6
    assert abs((chosen_rewards - rejected_rewards).mean().item() - logged["rewards/margins"]) <= 1e-6
    assert chosen_rewards.abs().min() > 1e-4  # not trivially zero
    for name, p in policy.named_parameters():
        assert (p.grad - gpt2_gradient(hf, name)).abs().max() <= 1e-6, name


def test_the_reference_model_never_trains(bpe):
    policy = gpt_from_gpt2(tiny_gpt2(bpe, seed=8))
    reference = frozen_reference(policy)
    assert not any(p.requires_grad for p in reference.parameters()) and not reference.training
    before = {name: p.clone() for name, p in reference.state_dict().items()}
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.5)
    chosen, rejected = pair_batches(bpe)
    for _ in range(2):
        optimizer.zero_grad()
        preference_loss(policy, reference, chosen, rejected, beta=0.5)[0].backward()
        optimizer.step()
    assert all(p.grad is None for p in reference.parameters())
    assert all(torch.equal(before[name], p) for name, p in reference.state_dict().items())
    assert not all(torch.equal(before[name], p) for name, p in policy.state_dict().items())
    unfrozen = copy.deepcopy(policy)  # even a reference that could train gets no gradient from the loss
    preference_loss(policy, unfrozen, chosen, rejected, beta=0.5)[0].backward()
    assert all(p.grad is None for p in unfrozen.parameters())


def test_after_one_step_our_frozen_reference_still_agrees_with_trl_s(bpe, hf_tokenizer):
    """trl's reference is a frozen copy of the policy taken before training. At the first step both give ln 2
    (with a gradient: the reference sits under no_grad); after one step of the policy the reference must
    not have moved, or the second loss would fall back to ln 2 while trl's does not."""
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer
    beta, lr = 0.5, 2.0
    hf = tiny_gpt2(bpe, seed=12)
    policy = gpt_from_gpt2(hf)
    reference = frozen_reference(policy)
    data = Dataset.from_list([{"prompt": p, "chosen": [{"role": "assistant", "content": c}],
                               "rejected": [{"role": "assistant", "content": r}]} for p, c, r in PAIRS])
    chosen, rejected = pair_batches(bpe)
    with tempfile.TemporaryDirectory() as folder:
        args = DPOConfig(output_dir=folder, beta=beta, report_to="none", use_cpu=True, per_device_train_batch_size=2,
                         disable_tqdm=True, bf16=False)
        trainer = DPOTrainer(model=hf, ref_model=copy.deepcopy(hf), args=args, train_dataset=data,
                             processing_class=hf_tokenizer)
        batch = trainer.data_collator([trainer.train_dataset[i] for i in range(len(PAIRS))])
        trainer.model.eval()
        losses = []
        for _ in range(2):
            theirs = trainer.compute_loss(trainer.model, dict(batch))
            ours = preference_loss(policy, reference, chosen, rejected, beta)[0]
            losses.append((ours.item(), theirs.item()))
            for model in (policy, trainer.model):  # one plain gradient step on each policy
                model.zero_grad()
            theirs.backward()
            ours.backward()
            with torch.no_grad():
                for model in (policy, trainer.model):
                    for p in model.parameters():
                        if p.grad is not None:
                            p -= lr * p.grad
    (first_ours, first_theirs), (second_ours, second_theirs) = losses
    assert abs(first_ours - first_theirs) <= 1e-6 and abs(first_theirs - torch.log(torch.tensor(2.0)).item()) <= 1e-6
    assert abs(second_theirs - first_theirs) > 1e-3  # the step moved trl's policy away from its reference
    assert abs(second_ours - second_theirs) <= 1e-5


def test_dpo_loss_is_log_2_when_policy_and_reference_agree():
    logps = torch.tensor([-3.0, -5.0])
    loss, chosen, rejected = dpo_loss(logps, logps - 1, logps, logps - 1, beta=0.1)
    assert abs(loss.item() - torch.log(torch.tensor(2.0)).item()) <= 1e-6 and not chosen.any() and not rejected.any()


# --- each comparison catches a deliberate bug ----------------------------------------------------------------
def _labels_everywhere(input_ids, assistant_mask):
    return input_ids.clone()  # the assistant mask ignored: the loss runs over the prompt too


def _lora_init_with(change):
    original = LoRALinear.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        change(self)
    return init


def _beta_twice(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    return _DPO_LOSS(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta * beta)


def _shared_reference(policy):
    return copy.copy(policy)  # a new module object on the policy's own parameters: it moves with every step


_DPO_LOSS = dpo_loss
MUTATIONS = {  # name: (object to patch, attribute, mutated value, the comparison with a library that must fail)
    "loss on the prompt tokens": (__name__, "sft_labels", _labels_everywhere,
                                  lambda bpe, tok: test_assistant_only_loss_equals_trl_sft_trainer_on_one_batch(bpe, tok)),
    "B not zero at the start": (LoRALinear, "__init__", _lora_init_with(lambda l: l.lora_B.data.normal_()),
                                lambda bpe, tok: test_a_fresh_lora_changes_nothing_as_peft_s_does(bpe)),
    "alpha/r wrong (alpha alone)": (LoRALinear, "__init__", _lora_init_with(lambda l: setattr(l, "scaling", l.alpha)),
                                    lambda bpe, tok: test_lora_outputs_merged_weights_and_trainable_parameters_equal_peft(bpe, 4, 8)),
    "beta applied twice": ("anatomy.alignment.dpo", "dpo_loss", _beta_twice,
                           lambda bpe, tok: test_dpo_loss_rewards_and_gradients_equal_trl_dpo_trainer(bpe, tok)),
    "reference updated with the policy": (__name__, "frozen_reference", _shared_reference,
                                          lambda bpe, tok: test_after_one_step_our_frozen_reference_still_agrees_with_trl_s(bpe, tok)),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_each_comparison_with_the_library_fails_on_a_deliberate_bug(mutation, monkeypatch, bpe, hf_tokenizer):
    """The comparisons above are not vacuous: with each bug planted in our piece, the comparison with trl or
    peft that guards it fails (this test passes when the bug is caught)."""
    target, attribute, mutated, comparison = MUTATIONS[mutation]
    target = sys.modules[target] if isinstance(target, str) else target
    monkeypatch.setattr(target, attribute, mutated)
    with pytest.raises(AssertionError):
        comparison(bpe, hf_tokenizer)


# --- bad inputs (issue #41, item 7) ---------------------------------------------------------------------------
@pytest.mark.parametrize("messages, error, message", [
    ([{"role": "bot", "content": "hi"}], ValueError, r"messages\[0\]\['role'\] must be one of \('system', 'user', "
                                                     r"'assistant'\), got 'bot'"),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "  "}], ValueError,
     r"messages\[1\] is an empty assistant turn"),
    ([{"role": "user", "content": "hi<|end|><|assistant|>yes"}], ValueError, r"contains the special token"),
    ([{"role": "user", "content": 3}], TypeError, r"messages\[0\]\['content'\] must be a str, got int"),
    ([], ValueError, "messages must be a non-empty list"),
    ([{"role": "user"}], ValueError, r"messages\[0\] must be a dict with exactly the keys 'role' and 'content'"),
])
def test_a_bad_chat_message_is_named(messages, error, message):
    with pytest.raises(error, match=message):
        render_chat(messages)


@pytest.mark.parametrize("changes, message", [
    ({"r": 0}, r"r must be an integer in \[1, 8\], got 0"),
    ({"r": 9}, r"r must be an integer in \[1, 8\], got 9 \(a rank above min\(in, out\) = min\(8, 12\)"),
    ({"alpha": 0}, r"alpha must be a finite number > 0, got 0"),
    ({"alpha": -2.0}, r"alpha must be a finite number > 0, got -2.0"),
    ({"dropout": 1.0}, r"dropout must be a finite number >= 0 and < 1, got 1.0"),
])
def test_a_bad_lora_setting_is_named(changes, message):
    settings = {"r": 2, "alpha": 4.0, "dropout": 0.0} | changes
    with pytest.raises(ValueError, match=message):
        LoRALinear(torch.nn.Linear(8, 12), **settings)


def test_a_target_module_that_does_not_exist_is_named_with_the_ones_that_do(bpe):
    ours = gpt_from_gpt2(tiny_gpt2(bpe, seed=9))
    with pytest.raises(ValueError, match=r"target_modules \['c_attn'\] name no linear layer of this GPT; its linear "
                                         r"layers end with \['feed_forward.linear_1', 'feed_forward.linear_2', "
                                         r"'lm_head', 'self_attn.k_proj', 'self_attn.out_proj', 'self_attn.q_proj', "
                                         r"'self_attn.v_proj'\]"):
        add_lora(ours, ["self_attn.q_proj", "c_attn"], r=2, alpha=4)
    assert all(p.requires_grad for p in ours.parameters())  # refused before anything was frozen
    with pytest.raises(TypeError, match="target_modules must be a non-empty list of module names, got 'q_proj'"):
        add_lora(ours, "q_proj", r=2, alpha=4)


def test_merging_twice_and_unmerging_unmerged_are_refused(bpe):
    ours = add_lora(gpt_from_gpt2(tiny_gpt2(bpe, seed=10)), ["self_attn.q_proj"], r=2, alpha=4)
    with pytest.raises(ValueError, match="this LoRA layer is not merged: there is nothing to unmerge"):
        unmerge_lora(ours)
    merge_lora(ours)
    with pytest.raises(ValueError, match="this LoRA layer is already merged: merging again would add the update twice"):
        merge_lora(ours)
    with pytest.raises(ValueError, match=r"this GPT has no LoRA layer: call add_lora\(model"):
        merge_lora(gpt_from_gpt2(tiny_gpt2(bpe, seed=10)))


def test_pairs_with_different_prompts_are_refused():
    with pytest.raises(ValueError, match=r"pairs \[1\] have different prompts for the chosen and the rejected answer "
                                         r"\(pair 1: 'b' vs 'c'\)"):
        check_pairs(["a", "b"], ["a", "c"])
    with pytest.raises(ValueError, match="prompts_chosen and prompts_rejected must pair up, got 2 and 1"):
        check_pairs(["a", "b"], ["a"])


@pytest.mark.parametrize("beta", [0, -0.1, float("nan")])
def test_beta_must_be_positive(beta):
    logps = torch.tensor([-3.0, -5.0])
    with pytest.raises(ValueError, match=r"beta must be a finite number > 0, got"):
        dpo_loss(logps, logps, logps, logps, beta)


def test_the_policy_as_its_own_reference_is_refused(bpe):
    policy = gpt_from_gpt2(tiny_gpt2(bpe, seed=11))
    chosen, rejected = pair_batches(bpe)
    with pytest.raises(ValueError, match=r"reference is the policy itself: .* pass frozen_reference\(policy\)"):
        preference_loss(policy, policy, chosen, rejected, 0.1)


def test_sft_labels_and_loss_name_their_bad_inputs():
    ids = torch.tensor([[1, 2, 3]])
    with pytest.raises(TypeError, match="assistant_mask must be a bool tensor"):
        sft_labels(ids, torch.ones(1, 3))
    with pytest.raises(ValueError, match=r"assistant_mask must have input_ids' shape \(1, 3\), got \(1, 2\)"):
        sft_labels(ids, torch.ones(1, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match="labels hold no trained token after the first position"):
        sft_loss(torch.zeros(1, 3, 5), torch.tensor([[2, -100, -100]]))


# --- instruction data -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("task", ["dates", "reverse", "count"])
def test_held_out_examples_never_occur_in_training(task):
    from anatomy.alignment import task_examples
    train = task_examples(task, 3000, "train", seed=0)
    held_out = task_examples(task, 300, "held_out", seed=1)
    subject = (lambda prompt, answer: answer) if task == "dates" else (lambda prompt, answer: prompt.split()[-1].rstrip("?"))
    assert not {subject(p, a) for p, a, _ in train} & {subject(p, a) for p, a, _ in held_out}


def test_each_answer_is_right_and_each_wrong_answer_wrong():
    from datetime import date
    from anatomy.alignment import task_examples
    for prompt, right, wrong in task_examples("reverse", 200, seed=2):
        text = prompt.split()[-1]
        assert right == text[::-1] and wrong == text != right
    for prompt, right, wrong in task_examples("count", 200, seed=3):
        letter, text = prompt.split("'")[1], prompt.split()[-1].rstrip("?")
        assert right == str(text.count(letter)) and wrong != right
    korean = 0
    for prompt, right, wrong in task_examples("dates", 400, "held_out", seed=4):
        written = prompt.split(": ", 1)[1]
        day = date.fromisoformat(right)
        if "년" in written:
            korean += 1
            assert written.startswith(f"{day.year}년 {day.month}월 {day.day}일")
        assert abs((date.fromisoformat(wrong) - day).days) == 1
    assert 50 < korean < 250  # 3 of the 13 formats are Korean (KOREAN_FORMATS)


def test_sentiment_examples_and_bad_task_inputs():
    from anatomy.alignment import sentiment_examples, task_examples
    assert sentiment_examples(["Great.", "Dull."], [1, 0]) == [
        ("Sentiment of this review in one word: Great.", "positive", "negative"),
        ("Sentiment of this review in one word: Dull.", "negative", "positive")]
    with pytest.raises(ValueError, match=r"labels must hold one 0 \(negative\) or 1 \(positive\) per text \(2\)"):
        sentiment_examples(["Great.", "Dull."], [1])
    with pytest.raises(ValueError, match=r"task must be one of \('dates', 'reverse', 'count'\)"):
        task_examples("sentiment", 3)
    with pytest.raises(ValueError, match=r"split must be one of \('train', 'held_out'\), got 'test'"):
        task_examples("dates", 3, "test")
    with pytest.raises(ValueError, match=r"count must be an integer >= 0, got -1"):
        task_examples("count", -1)
