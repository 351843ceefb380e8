"""The code cells of homework 3's template (notebook 19_homework_attention_tests, the student version), each as the
SHA-256 of its normalized text (anatomy_grading.static.normalized): the check cell skips a cell of the kernel's
history that is one of them, as the grader skips a template cell the student left unchanged. Written by
`python -m tools.template_cells notebooks/19_homework_attention_tests.ipynb` (make homework); a test checks it.
"""

CELLS = frozenset({
    "526bfc50381dd6cd7396df63b13166f4e9f7c370d084336e4f6d083413189f9f",
    "54d202587ad3d060443fe4241395cd16e8abbb51dbecf72eb452246b31684c03",
    "74f9fa3ef03111b98d6d2c7c9701736a84715b3789fe4fc68ea0e063ae0c9b72",
    "8b41f0f1c8bd8860a2dcf3ad96fa808d69e442434cdefe81303e06c11c43f104",
    "92d45fcdc16439391a52b33c07f1586343902723075f88fd8a4ee92d9de4c496",
    "bc004506271dc3ae2a36627bfa07bb1caf3e8053c534801700106e7e18dc5c34",
    "ec19a419fbe30f5fadf7e991316a8844b862da199cb3847d0513d9e1a8ac16dd",
    "f6d3c242bc5355045948845e4c9807f8cfcbb14413a69be7973773cedc940a76",
})
