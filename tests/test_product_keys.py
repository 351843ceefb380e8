import pytest
import torch

from anatomy.efficient.product_keys import ProductKeyMemory, all_product_keys, product_key_top_k


@pytest.mark.parametrize("num_sub_keys,top_k", [(4, 1), (4, 4), (16, 5), (32, 32), (64, 8)])
def test_same_top_k_as_brute_force_over_all_n_keys(num_sub_keys, top_k):
    generator = torch.Generator().manual_seed(num_sub_keys + top_k)
    sub_keys_1, sub_keys_2 = torch.randn(2, num_sub_keys, 6, generator=generator, dtype=torch.float64)
    queries = torch.randn(3, 50, 12, generator=generator, dtype=torch.float64)  # 150 random queries
    scores, indices = product_key_top_k(queries, sub_keys_1, sub_keys_2, top_k)
    brute_scores, brute_indices = (queries @ all_product_keys(sub_keys_1, sub_keys_2).T).topk(top_k, dim=-1)
    assert torch.equal(indices, brute_indices)  # the same keys, in the same order
    torch.testing.assert_close(scores, brute_scores)


def test_all_product_keys_glues_the_halves_in_order():
    sub_keys_1, sub_keys_2 = torch.tensor([[1.0], [2.0]]), torch.tensor([[10.0], [20.0]])
    assert all_product_keys(sub_keys_1, sub_keys_2).tolist() == [[1, 10], [1, 20], [2, 10], [2, 20]]


def test_memory_reads_the_softmax_weighted_top_k_values():
    memory = ProductKeyMemory(query_dim=8, num_keys=36, value_dim=5, top_k=3)
    query = torch.randn(4, 8)
    output, weights, indices = memory(query)
    brute = query @ all_product_keys(memory.sub_keys_1, memory.sub_keys_2).T  # (4, 36)
    top_scores, top_indices = brute.topk(3, dim=-1)
    expected = torch.einsum("bk,bkv->bv", torch.softmax(top_scores, -1), memory.values.weight[top_indices])
    torch.testing.assert_close(output, expected)
    assert torch.equal(indices, top_indices) and output.shape == (4, 5)
    output.sum().backward()
    assert memory.sub_keys_1.grad.abs().sum() > 0 and memory.values.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("num_keys", [10, 65_535, 2])
def test_num_keys_must_be_a_perfect_square(num_keys):
    with pytest.raises(ValueError, match=rf"num_keys must be a perfect square .*got {num_keys}"):
        ProductKeyMemory(8, num_keys, 4, top_k=1)


def test_top_k_larger_than_the_candidates_is_an_error():
    with pytest.raises(ValueError, match="top_k must be an integer between 1 and the 4 sub-keys per half .*got 5"):
        ProductKeyMemory(8, 16, 4, top_k=5)
    with pytest.raises(ValueError, match="top_k must be an integer between 1 and the 3 sub-keys per half .*got 0"):
        product_key_top_k(torch.randn(6), torch.randn(3, 3), torch.randn(3, 3), 0)
    with pytest.raises(ValueError, match="query_dim must be even"):
        ProductKeyMemory(7, 16, 4, top_k=2)


def test_non_integer_sizes_wrong_widths_and_nan_queries():
    with pytest.raises(ValueError, match=r"top_k must be an integer between 1 and the 4 sub-keys per half .*got 2.5"):
        ProductKeyMemory(query_dim=8, num_keys=16, value_dim=4, top_k=2.5)
    with pytest.raises(ValueError, match="value_dim must be an integer >= 1, got 0"):
        ProductKeyMemory(query_dim=8, num_keys=16, value_dim=0, top_k=2)
    memory = ProductKeyMemory(query_dim=8, num_keys=16, value_dim=4, top_k=2)
    with pytest.raises(ValueError, match=r"query must be \(\.\.\., Dq\) with Dq = 2 x the sub-key width = 8, got shape \(3, 6\)"):
        memory(torch.randn(3, 6))
    with pytest.raises(ValueError, match=r"sub_keys_1 and sub_keys_2 must have one shape \(n, Dq/2\), got \(4, 4\) and \(4, 3\)"):
        product_key_top_k(torch.randn(8), torch.randn(4, 4), torch.randn(4, 3), 2)
    with pytest.raises(ValueError, match=r"the product-key scores hold NaN"):
        memory(torch.tensor([[float("nan")] * 8]))


@pytest.mark.parametrize("argument, wrong", [(argument, wrong) for argument in ["query", "sub_keys_1", "sub_keys_2"]
                                             for wrong in [None, "integer", "one dimension more"]
                                             if (argument, wrong) != ("query", "one dimension more")])  # (1, B, Dq) is valid
def test_product_key_top_k_names_the_tensor_that_is_wrong(argument, wrong):
    # None raised an AttributeError, integer keys a RuntimeError from matmul, a 3-D key set a message naming neither set
    tensors = {"query": torch.randn(2, 8), "sub_keys_1": torch.randn(4, 4), "sub_keys_2": torch.randn(4, 4)}
    value = tensors[argument]
    tensors[argument] = {None: None, "integer": value.long(), "one dimension more": value[None]}[wrong]
    with pytest.raises((TypeError, ValueError), match=argument):
        product_key_top_k(**tensors, top_k=3)
