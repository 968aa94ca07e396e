"""The GGUF metadata reader (formats/gguf.py), checked against the `gguf` package's own reader
on files its writer wrote, and on hostile headers that must fail fast with a ValueError."""

from __future__ import annotations

import os
import struct

import gguf
import pytest

import tokenizers_core as tc
from tests.gguf_files import write, write_gpt2
from tokenizers_core.formats import sniff
from tokenizers_core.formats.gguf import read_metadata


def _theirs(path: str) -> dict:
    """Every key-value pair as the gguf package's GGUFReader reads it."""
    reader = gguf.GGUFReader(path)
    return {
        key: fld.contents() for key, fld in reader.fields.items() if not key.startswith("GGUF.")
    }  # its header fields, not keys


@pytest.fixture(scope="module")
def gpt2_file(tmp_path_factory) -> str:
    return write_gpt2(str(tmp_path_factory.mktemp("gguf") / "gpt2.gguf"))


@pytest.mark.heavy
def test_every_key_reads_as_the_gguf_package_reads_it(gpt2_file):
    ours = read_metadata(gpt2_file).kv
    theirs = _theirs(gpt2_file)
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        assert ours[key] == value, key
    assert len(ours["tokenizer.ggml.tokens"]) == 50257
    assert ours["tokenizer.ggml.merges"][0] == "Ġ t"


def test_all_value_types_and_arrays_round_trip(tmp_path):
    path = str(tmp_path / "types.gguf")
    writer = gguf.GGUFWriter(path, arch="llama")
    values = {
        "a.u8": (7, gguf.GGUFValueType.UINT8),
        "a.i8": (-7, gguf.GGUFValueType.INT8),
        "a.u16": (700, gguf.GGUFValueType.UINT16),
        "a.i16": (-700, gguf.GGUFValueType.INT16),
        "a.u32": (70000, gguf.GGUFValueType.UINT32),
        "a.i32": (-70000, gguf.GGUFValueType.INT32),
        "a.u64": (2**40, gguf.GGUFValueType.UINT64),
        "a.i64": (-(2**40), gguf.GGUFValueType.INT64),
        "a.f32": (0.5, gguf.GGUFValueType.FLOAT32),
        "a.f64": (0.25, gguf.GGUFValueType.FLOAT64),
        "a.bool": (True, gguf.GGUFValueType.BOOL),
        "a.str": ("héllo <script>", gguf.GGUFValueType.STRING),
    }
    for key, (value, kind) in values.items():
        writer.add_key_value(key, value, kind)
    writer.add_array("a.strs", ["", "▁x", "日本"])
    writer.add_array("a.ints", [1, -2, 3])
    writer.add_array("a.floats", [0.5, -1.25])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    meta = read_metadata(path)
    for key, (value, _kind) in values.items():
        assert meta.kv[key] == value, key
    assert meta.kv["a.strs"] == ["", "▁x", "日本"]
    assert meta.kv["a.ints"] == [1, -2, 3] and meta.kv["a.floats"] == [0.5, -1.25]
    assert meta.version == 3 and meta.tensor_count == 0
    assert _theirs(path)["a.strs"] == meta.kv["a.strs"]


def test_a_prefix_that_holds_the_key_value_section_is_enough(gpt2_file):
    data = open(gpt2_file, "rb").read()
    meta = read_metadata(gpt2_file)
    assert read_metadata(data[: meta.kv_end], prefix=True).kv == meta.kv
    assert sniff(data[:64]) == "gguf"
    tok = tc.load(data[: meta.kv_end])
    assert tok.encode("Hello world").ids == [15496, 995]


def test_a_prefix_cut_inside_the_key_value_section_says_so(gpt2_file):
    data = open(gpt2_file, "rb").read()
    with pytest.raises(ValueError, match="cut before the end of the GGUF metadata"):
        read_metadata(data[:100_000], prefix=True)
    with pytest.raises(ValueError, match="more than the file holds"):
        read_metadata(data[:100_000])  # a whole file, truncated


def _header(kv_count: int, version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, 0, kv_count)


def _key(name: str) -> bytes:
    return struct.pack("<Q", len(name)) + name.encode()


@pytest.mark.parametrize(
    "data, message",
    [
        (_header(10**12), "declares 1,000,000,000,000 key-value pairs"),
        (
            _header(1) + _key("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 10**12),
            "declares 1,000,000,000,000 elements, more than the 2,000,000",
        ),
        (
            _header(1) + _key("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 10**6),
            "more than the file holds",
        ),
        (
            _header(1) + struct.pack("<Q", 2**63) + b"k",
            "declares 9,223,372,036,854,775,808 bytes, more than the 16,777,216",
        ),
        (_header(1) + _key("k") + struct.pack("<I", 99), "value type 99"),
        (_header(1) + _key("k") + struct.pack("<IIQ", 9, 9, 1) + bytes(16), "array of arrays"),
        (_header(0, version=1), "version 1 is not supported"),
        (b"GGUF" + struct.pack(">IQQ", 3, 0, 0), "big-endian"),
        (b"GGUF\x03\x00", "truncated"),
    ],
)
def test_hostile_headers_fail_fast_with_a_sentence(data, message):
    with pytest.raises(ValueError, match=message):
        read_metadata(data)


def test_a_file_that_is_not_gguf_is_refused_by_the_reader():
    with pytest.raises(ValueError, match="not a GGUF file"):
        read_metadata(b"GGUX\x03\x00\x00\x00")


def test_a_hostile_file_on_disk_fails_through_tc_load(tmp_path):
    path = tmp_path / "evil.gguf"
    path.write_bytes(_header(1) + _key("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 10**9))
    with pytest.raises(ValueError, match="evil.gguf: .*elements"):
        tc.load(str(path))


def test_a_gguf_without_a_tokenizer_says_so(tmp_path):
    path = write(str(tmp_path / "none.gguf"), {"add_name": "x"})
    with pytest.raises(ValueError, match="holds no tokenizer"):
        tc.load(path)


def test_any_cut_or_corrupted_byte_is_a_value_error_or_a_good_read(tmp_path):
    """Every prefix of a small GGUF, and the file with any one byte of its first 600 changed,
    either reads or raises ValueError: never another exception, never a huge allocation."""
    path = write(
        str(tmp_path / "small.gguf"),
        {
            "add_tokenizer_model": "gpt2",
            "add_tokenizer_pre": "qwen2",
            "add_token_list": ["a", "b", "ab", "Ġ"],
            "add_token_types": [1, 1, 1, 1],
            "add_token_merges": ["a b"],
            "add_add_bos_token": False,
        },
    )
    data = open(path, "rb").read()
    end = read_metadata(data).kv_end
    for cut in range(end):
        with pytest.raises(ValueError):
            read_metadata(data[:cut], prefix=True)
    for at in range(min(600, end)):
        for byte in (0x00, 0x7F, 0xFF):
            broken = data[:at] + bytes([byte]) + data[at + 1 :]
            try:
                tc.load(broken)
            except ValueError:
                pass


def test_a_model_of_8_gb_loads_from_its_metadata_alone(gpt2_file, tmp_path):
    """Sparse zeros past the metadata stand for the tensors: a reader that read the whole file
    would refuse it (tokenizer files stop at 64 MB) or take minutes."""
    path = tmp_path / "model.gguf"
    path.write_bytes(open(gpt2_file, "rb").read())
    os.truncate(path, 8 * 1024**3)
    tok = tc.load(str(path))
    assert tok.encode("Hello world").ids == [15496, 995]
    assert tok.gguf["metadata_bytes"] == read_metadata(gpt2_file).kv_end
