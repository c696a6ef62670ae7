"""Writes bench/zoo/zoo.txt: a workload (`ktune tune --workload`) of the problems users run,
for the untuned-defaults and shapes benchmarks (issues 67 and 72). Regenerate it with
  python3 bench/zoo/make_zoo.py > bench/zoo/zoo.txt
and check it with `ktune tune --workload bench/zoo/zoo.txt --check`. Never edit zoo.txt by hand.

- GEMM: the projections of open LLMs (their published configs: hidden size, intermediate
  size, attention and KV heads, head size, vocabulary) at 1 .. 16384 tokens, bf16 and f16:
  activations (tokens x in) times weights stored (out x in), so the layout is `nt`;
  and squares 1024 .. 8192.
- Transposes and row/column reductions of those activation and weight matrices.
- Whole-array scans and compaction at 2^16 .. 2^28 elements; row scans of token x hidden.
"""

# name: (hidden, intermediate, attention heads, KV heads, head size, vocabulary)
MODELS = {
    "TinyLlama-1.1B": (2048, 5632, 32, 4, 64, 32000),
    "Llama-3.2-1B": (2048, 8192, 32, 8, 64, 128256),
    "Llama-3.2-3B": (3072, 8192, 24, 8, 128, 128256),
    "Llama-2-7B": (4096, 11008, 32, 32, 128, 32000),
    "Mistral-7B": (4096, 14336, 32, 8, 128, 32000),
    "Llama-3.1-8B": (4096, 14336, 32, 8, 128, 128256),
    "Qwen2.5-7B": (3584, 18944, 28, 4, 128, 152064),
    "Llama-3.1-70B": (8192, 28672, 64, 8, 128, 128256),
    "GPT-2-XL": (1600, 6400, 25, 25, 64, 50257),
}
TOKENS = (1, 16, 128, 512, 2048, 4096, 8192, 16384)
GEMM_DTYPES = ("bf16", "f16")


def projections(hidden, inter, heads, kv_heads, head, vocab):
    """(label, out features, in features) of one transformer layer and the LM head."""
    return [("qkv", (heads + 2 * kv_heads) * head, hidden), ("o", hidden, heads * head),
            ("gate_up", 2 * inter, hidden), ("down", hidden, inter), ("lm_head", vocab, hidden)]


def gemm_lines():
    seen = set()
    for name, config in MODELS.items():
        for _, out, inner in projections(*config):
            for tokens in TOKENS:
                for dtype in GEMM_DTYPES:
                    key = (tokens, out, inner, dtype)
                    if key not in seen:
                        seen.add(key)
                        yield f"gemm --dtype {dtype} --layout nt --shape {tokens}x{out}x{inner}"
    for n in (1024, 2048, 3072, 4096, 6144, 8192):
        for dtype in GEMM_DTYPES:
            yield f"gemm --dtype {dtype} --shape {n}x{n}x{n}"


def matrix_lines():
    seen = set()
    for hidden, inter, *_ in MODELS.values():
        for rows, cols in ((4096, hidden), (hidden, inter), (inter, hidden), (16384, hidden)):
            if (rows, cols) in seen:
                continue
            seen.add((rows, cols))
            yield f"transpose --dtype bf16 --shape {rows}x{cols}"
            yield f"transpose --dtype f32 --shape {rows}x{cols}"
            yield f"reduce_rows --dtype bf16 --op sum --shape {rows}x{cols}"
            yield f"reduce_cols --dtype f32 --op sum --shape {rows}x{cols}"


def array_lines():
    for log2 in range(16, 29, 2):
        n = 1 << log2
        yield f"scan --dtype f32 --op sum --n {n}"
        yield f"scan --dtype i32 --op sum --n {n}"
        yield f"reduce --dtype f32 --op sum --n {n}"
        yield f"compact --dtype f32 --mode flags --n {n}"
    for hidden in sorted({config[0] for config in MODELS.values()}):
        yield f"scan_rows --dtype f32 --op sum --shape 4096x{hidden}"


if __name__ == "__main__":
    print("# The problem zoo: made by bench/zoo/make_zoo.py (see its docstring); do not edit.")
    for section, lines in (("GEMM: LLM projections (nt) and squares", gemm_lines()),
                           ("transposes and row/column reductions of those matrices", matrix_lines()),
                           ("scans, reductions and compaction of whole arrays; row scans", array_lines())):
        print(f"# {section}")
        for line in lines:
            print(line)
