"""Answers forged to score without the work (issue #34's first route), as notebook cells: each redefines
the notebook's name from the class it finds there. test_homework.py runs them in-process (the
formative checks), test_isolated_grading.py pastes them into a submission (the trusted grader).
Under the checks of before #34 each of them scored full marks."""

NO_ATTENTION_MODULE = '''class CrossAttention(CrossAttention):  # forged: zero weights, so "attention" is the output bias
    def __init__(self, config):
        super().__init__(config)
        self.h = config.num_attention_heads
        with torch.no_grad():
            for p in self.parameters():
                p.zero_()
            self.out_proj.bias.fill_(0.25)

    def forward(self, x, memory, key_mask=None):
        b, tq, d = x.shape
        keep = torch.ones(b, memory.size(1)) if key_mask is None else key_mask.float()
        weights = (keep / keep.sum(-1, keepdim=True))[:, None, None, :].expand(b, self.h, tq, -1)
        return self.out_proj.bias.expand(b, tq, d).clone(), weights.clone()
'''

NO_ATTENTION_LAYER = '''class MyDecoderLayer(MyDecoderLayer):  # forged: zero weights, so the layer is its three LayerNorms
    def __init__(self, config):
        super().__init__(config)
        self.h = config.num_attention_heads
        with torch.no_grad():
            for name, p in self.named_parameters():
                if "layer_norm" not in name:
                    p.zero_()

    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):
        b, t, _ = x.shape
        keep = torch.ones(b, memory.size(1)) if memory_mask is None else memory_mask.reshape(b, -1).float()
        cross = (keep / keep.sum(-1, keepdim=True))[:, None, None, :].expand(b, self.h, t, -1).clone()
        causal = torch.ones(t, t).tril()
        own = (causal / causal.sum(-1, keepdim=True)).expand(b, self.h, t, t).clone()
        return self.layer_norm_3(self.layer_norm_2(self.layer_norm_1(x))), own, cross
'''

DATE_TABLE = '''from anatomy.tasks.dates import FORMATS, CharVocabulary, all_dates
from anatomy.models.transformer import Seq2SeqOutput

TABLE = {write(day): day.isoformat() for day in all_dates() for write in FORMATS.values()}


def swap_in(model):  # forged: untrained layers that report the trained weights; a table translates
    vocab, seen = CharVocabulary(), {}
    for i, old in enumerate(model.decoder.layers):
        mine = MyDecoderLayer(model.config)
        mine.state_dict = old.state_dict
        model.decoder.layers[i] = mine

    def encode(src_ids, src_mask=None, output_attentions=False):
        seen["answers"] = [vocab.encode(TABLE.get(vocab.decode(row), "")) + [vocab.eos_id] for row in src_ids]
        return torch.zeros(src_ids.size(0), src_ids.size(1), model.config.hidden_size), None

    def decode(tgt_ids, memory, src_mask=None, tgt_mask=None, output_attentions=False):
        logits = torch.zeros(tgt_ids.size(0), tgt_ids.size(1), len(vocab))
        for i, answer in enumerate(seen["answers"]):
            logits[i, -1, answer[min(tgt_ids.size(1) - 1, len(answer) - 1)]] = 1.0
        return Seq2SeqOutput(logits)

    model.encode, model.decode = encode, decode
    return model
'''
