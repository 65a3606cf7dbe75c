"""Byte-faithful stand-ins for bitsandbytes' quantized storage (NF4 / LLM.int8).

The trace and the pilot need the *bytes* bitsandbytes keeps, not bitsandbytes itself (it has no
CPU build of its CUDA kernels, and it is not a dependency). Each stand-in stores exactly the
tensors, dtypes and element counts of ``bitsandbytes.functional.quantize_4bit`` /
``Int8Params`` (sources cited per constant), and quantizes/dequantizes for real so the pilot
trains a correct model:

* NF4 (Dettmers et al. 2023, QLoRA, and bitsandbytes ``quantize_4bit``): two 4-bit codes per uint8
  byte, first value in the high nibble; one fp32 absmax per block of 64 values. With double
  quantization (``compress_statistics=True``) the absmax values, minus their mean (``offset``,
  one fp32), are quantized blockwise again: one uint8 code per 64-block, one fp32 absmax per 256
  codes. Bytes per parameter: 0.5 + 4/64 (= 0.5 bit) or 0.5 + 1/64 + 4/(64*256) (= 0.127 bit).
* int8 (Dettmers et al. 2022, LLM.int8(), bitsandbytes ``Int8Params``): one int8 per value and one
  fp32 row scale (SCB) per output row.

Quantize and dequantize are registered custom ops (``torch.library``) with fake kernels, like the
CUDA kernels they stand for: under ``FakeTensorMode`` a dequantize allocates exactly its output
and nothing else; on a real device the kernel's internal chunking is invisible to autograd.
The pure byte-count formulas below need no torch (the analytic model may import them).
"""

import math

NF4_BLOCK = 64  # bitsandbytes quantize_4bit default blocksize (bnb_4bit blocksize=64)
NF4_DQ_BLOCK = 256  # blocksize of the second-level (double) quantization of absmax in quantize_4bit
OPT8_BLOCK = 2048  # bitsandbytes 8-bit blockwise optimizers: one fp32 absmax per 2048 values
OPT8_MIN_SIZE = 4096  # bitsandbytes Optimizer8bit min_8bit_size: smaller tensors keep fp32 states
FP32 = 4

# The 16 NF4 levels, bitsandbytes functional.get_4bit_type("nf4") (QLoRA paper, Appendix E).
NF4_LEVELS = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)
# Work in chunks of this many values inside the real kernels so a 70B layer never needs a
# full-size int64/fp32 temporary (a multiple of every block size above).
_CHUNK = 1 << 22


def nf4_blocks(numel: int) -> int:
    return math.ceil(numel / NF4_BLOCK)


def nf4_data_bytes(numel: int) -> int:
    """Packed 4-bit codes: two per byte (bitsandbytes stores ((n + 1) // 2, 1) uint8)."""
    return (numel + 1) // 2


def nf4_constant_bytes(numel: int, double_quant: bool) -> int:
    """Quantization constants of one NF4 tensor (bitsandbytes QuantState absmax [+ state2])."""
    blocks = nf4_blocks(numel)
    if not double_quant:
        return blocks * FP32
    return blocks * 1 + math.ceil(blocks / NF4_DQ_BLOCK) * FP32 + FP32  # codes + absmax2 + offset


def int8_data_bytes(out_features: int, in_features: int) -> int:
    return out_features * in_features


def int8_constant_bytes(out_features: int) -> int:
    """LLM.int8 row-wise scale (SCB): one fp32 per output row."""
    return out_features * FP32


def opt8_state_bytes(numel: int) -> int:
    """Two 8-bit Adam states with per-2048-block fp32 absmax each, or two fp32 states below
    bitsandbytes' min_8bit_size."""
    if numel < OPT8_MIN_SIZE:
        return 2 * numel * FP32
    return 2 * (numel + math.ceil(numel / OPT8_BLOCK) * FP32)


def dynamic_map(signed: bool = True) -> list[float]:
    """bitsandbytes functional.create_dynamic_map(signed, max_exponent_bits=7, total_bits=8):
    the 256-level dynamic tree quantization map (Dettmers et al. 2022, 8-bit optimizers)."""
    data: list[float] = []
    max_exp, non_sign = 7, 7
    for i in range(max_exp):
        items = 2 ** (i + non_sign - max_exp) + 1 if signed else 2 ** (i + non_sign - max_exp + 1) + 1
        bounds = [0.1 + 0.9 * k / (items - 1) for k in range(items)]
        means = [(a + b) / 2 for a, b in zip(bounds[:-1], bounds[1:])]
        scale = 10 ** (-(max_exp - 1) + i)
        data += [scale * m for m in means]
        if signed:
            data += [-scale * m for m in means]
    data += [0.0, 1.0]
    data += [0.0] * (256 - len(data))
    return sorted(data)


# --- torch side: custom ops with fake kernels ------------------------------------------------

_REGISTERED = False


def register_ops() -> None:
    """Register the advisor:: quantization ops once (imports torch)."""
    global _REGISTERED
    if _REGISTERED:
        return
    import torch

    def _table(values, device):
        return torch.tensor(values, dtype=torch.float32, device=device)

    def _nearest(x, levels):
        """Index of the nearest level (levels sorted ascending)."""
        mids = (levels[1:] + levels[:-1]) / 2
        return torch.bucketize(x, mids)

    def _quant_blockwise_8bit(x, block):
        """Blockwise absmax 8-bit quantization with the signed dynamic map -> (codes, absmax)."""
        n = x.numel()
        blocks = math.ceil(n / block)
        padded = torch.nn.functional.pad(x.reshape(-1), (0, blocks * block - n)).view(blocks, block)
        absmax = padded.abs().amax(dim=1).clamp_min(1e-12)
        codes = _nearest((padded / absmax[:, None]).reshape(-1), _table(dynamic_map(True), x.device))
        return codes[:n].to(torch.uint8), absmax

    def _dequant_blockwise_8bit(codes, absmax, block):
        n = codes.numel()
        levels = _table(dynamic_map(True), codes.device)[codes.long()]
        blocks = absmax.numel()
        padded = torch.nn.functional.pad(levels, (0, blocks * block - n)).view(blocks, block)
        return (padded * absmax[:, None]).reshape(-1)[:n]

    @torch.library.custom_op("advisor::quantize_nf4", mutates_args=())
    def quantize_nf4(weight: torch.Tensor, double_quant: bool) -> list[torch.Tensor]:
        flat = weight.detach().reshape(-1)
        n = flat.numel()
        blocks = nf4_blocks(n)
        levels = _table(NF4_LEVELS, weight.device)
        packed = torch.empty(nf4_data_bytes(n), dtype=torch.uint8, device=weight.device)
        absmax = torch.empty(blocks, dtype=torch.float32, device=weight.device)
        for start in range(0, n, _CHUNK):
            stop = min(start + _CHUNK, n)
            chunk = flat[start:stop].float()
            nb = math.ceil((stop - start) / NF4_BLOCK)
            padded = torch.nn.functional.pad(chunk, (0, nb * NF4_BLOCK - chunk.numel())).view(nb, NF4_BLOCK)
            amax = padded.abs().amax(dim=1).clamp_min(1e-12)
            absmax[start // NF4_BLOCK: start // NF4_BLOCK + nb] = amax
            codes = _nearest((padded / amax[:, None]).reshape(-1), levels).to(torch.uint8)
            if codes.numel() % 2:
                codes = torch.nn.functional.pad(codes, (0, 1))
            pairs = codes.view(-1, 2)
            packed_chunk = (pairs[:, 0] << 4) | pairs[:, 1]
            packed[start // 2: start // 2 + packed_chunk.numel()] = packed_chunk[: nf4_data_bytes(stop - start)]
        if not double_quant:
            return [packed, absmax]
        offset = absmax.mean().reshape(1)
        qabsmax, absmax2 = _quant_blockwise_8bit(absmax - offset, NF4_DQ_BLOCK)
        return [packed, qabsmax, absmax2, offset]

    @quantize_nf4.register_fake
    def _(weight, double_quant):
        n = weight.numel()
        blocks = nf4_blocks(n)
        packed = weight.new_empty(nf4_data_bytes(n), dtype=torch.uint8)
        if not double_quant:
            return [packed, weight.new_empty(blocks, dtype=torch.float32)]
        return [packed, weight.new_empty(blocks, dtype=torch.uint8),
                weight.new_empty(math.ceil(blocks / NF4_DQ_BLOCK), dtype=torch.float32),
                weight.new_empty(1, dtype=torch.float32)]

    @torch.library.custom_op("advisor::dequantize_nf4", mutates_args=())
    def dequantize_nf4(packed: torch.Tensor, absmax: torch.Tensor, absmax2: torch.Tensor | None,
                       offset: torch.Tensor | None, rows: int, cols: int, dtype: torch.dtype) -> torch.Tensor:
        n = rows * cols
        if absmax2 is not None and offset is not None:
            absmax = _dequant_blockwise_8bit(absmax, absmax2, NF4_DQ_BLOCK) + offset
        levels = _table(NF4_LEVELS, packed.device)
        out = torch.empty(n, dtype=dtype, device=packed.device)
        for start in range(0, n, _CHUNK):
            stop = min(start + _CHUNK, n)
            byte_lo, byte_hi = start // 2, (stop + 1) // 2
            b = packed[byte_lo:byte_hi]
            codes = torch.stack(((b >> 4) & 0xF, b & 0xF), dim=1).reshape(-1)[: stop - start]
            vals = levels[codes.long()]
            nb = math.ceil((stop - start) / NF4_BLOCK)
            vals = torch.nn.functional.pad(vals, (0, nb * NF4_BLOCK - vals.numel())).view(nb, NF4_BLOCK)
            scaled = vals * absmax[start // NF4_BLOCK: start // NF4_BLOCK + nb, None]
            out[start:stop] = scaled.reshape(-1)[: stop - start].to(dtype)
        return out.view(rows, cols)

    @dequantize_nf4.register_fake
    def _(packed, absmax, absmax2, offset, rows, cols, dtype):
        return packed.new_empty((rows, cols), dtype=dtype)

    @torch.library.custom_op("advisor::quantize_int8", mutates_args=())
    def quantize_int8(weight: torch.Tensor) -> list[torch.Tensor]:
        w = weight.detach().float()
        scb = w.abs().amax(dim=1).clamp_min(1e-12)
        data = torch.round(w * (127.0 / scb[:, None])).to(torch.int8)
        return [data, scb]

    @quantize_int8.register_fake
    def _(weight):
        return [weight.new_empty(weight.shape, dtype=torch.int8),
                weight.new_empty(weight.shape[0], dtype=torch.float32)]

    @torch.library.custom_op("advisor::dequantize_int8", mutates_args=())
    def dequantize_int8(data: torch.Tensor, scb: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        return (data.float() * (scb[:, None] / 127.0)).to(dtype)

    @dequantize_int8.register_fake
    def _(data, scb, dtype):
        return data.new_empty(data.shape, dtype=dtype)

    _REGISTERED = True
