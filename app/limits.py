"""Reading what users send, within limits: uploaded files, gzip inside them, text with lone
surrogates, and the size of a whole request body.

Every way a corpus or a file comes in goes through these helpers, so one limit (the documented
one, `TOKVIS_MAX_CORPUS_BYTES` / `TOKVIS_MAX_UPLOAD_BYTES`) holds for pasted text, JSON bodies,
form posts and uploads alike. Each helper raises `HTTPException` with a 4xx status and a message a
user can act on; none holds more than the limit (plus one chunk) in memory.

    data = await read_upload(file, limit)          # 413 past the limit
    data = maybe_gunzip(data, limit)               # 413 past the limit once decompressed,
                                                   # 422 for a truncated or broken gzip stream

The body limit itself is `BodyLimit` (middleware): no body is read past `body_limit`, except a
GGUF model sent whole to a tokenizer upload, of which only the metadata prefix is kept.
"""

from __future__ import annotations

import zlib

from fastapi import HTTPException, UploadFile
from python_multipart.multipart import MultipartParseError, MultipartParser, parse_options_header
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tokenizers_core.formats import GGUF_MAGIC

CHUNK = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"


def too_large(what: str, size_text: str, limit: int, setting: str) -> HTTPException:
    return HTTPException(
        413, f"the {what} is {size_text}; the limit is {limit:,} bytes (set {setting} to change it)"
    )


async def read_upload(
    file: UploadFile, limit: int, setting: str = "TOKVIS_MAX_UPLOAD_BYTES"
) -> bytes:
    """The bytes of an uploaded file, read in chunks; 413 as soon as it passes `limit`."""
    data = bytearray()
    while True:
        chunk = await file.read(CHUNK)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            raise too_large("file", f"over {limit:,} bytes", limit, setting)


def gunzip_capped(data: bytes, limit: int, setting: str = "TOKVIS_MAX_UPLOAD_BYTES") -> bytes:
    """Decompress gzip `data` (one or more members), never producing more than `limit` bytes:
    the decompressor is asked for at most the bytes still allowed, so a gzip bomb stops after
    `limit` bytes of output, not after it has filled the memory.

    413 when the output would pass `limit`; 422 for a stream that is truncated, corrupt or not
    gzip at all.

    >>> import gzip
    >>> gunzip_capped(gzip.compress(b"abc") + gzip.compress(b"def"), 10)
    b'abcdef'
    """
    out = bytearray()
    rest = data
    while True:
        if rest[:2] != GZIP_MAGIC:
            raise HTTPException(422, "the file is not valid gzip (bad header)")
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        while not inflate.eof:
            try:
                out += inflate.decompress(pending, limit + 1 - len(out))
            except zlib.error as exc:
                raise HTTPException(422, f"the file is not valid gzip ({exc})") from None
            if len(out) > limit:
                raise too_large("file", f"over {limit:,} bytes once decompressed", limit, setting)
            pending = inflate.unconsumed_tail
            if not pending and not inflate.eof:
                raise HTTPException(
                    422, "the gzip stream is truncated (it ends before its last block)"
                )
        rest = inflate.unused_data.lstrip(b"\0")  # gzip pads members with zeros at times
        if not rest:
            return bytes(out)


def maybe_gunzip(data: bytes, limit: int, setting: str = "TOKVIS_MAX_UPLOAD_BYTES") -> bytes:
    """`gunzip_capped(data)` if `data` starts with the gzip magic number, else `data`."""
    return gunzip_capped(data, limit, setting) if data[:2] == GZIP_MAGIC else data


def text_of(data: bytes) -> str:
    """Uploaded bytes as UTF-8 text (a BOM is dropped); 422 if they are not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HTTPException(422, f"the file is not UTF-8 text (bad byte at {exc.start})") from None


def without_lone_surrogates(text: str) -> str:
    """Replace each lone surrogate with U+FFFD, as tiktoken's `Encoding.encode` does; a JSON
    string may hold one (`"\\ud800"`) though no UTF-8 text can. One character stays one
    character, so offsets still index the text as sent.

    >>> without_lone_surrogates("a\\ud800b")
    'a\\ufffdb'
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def check_corpus_size(text: str, limit: int) -> None:
    """413 if `text` is over the corpus limit in UTF-8 bytes."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise too_large("corpus", f"{size:,} bytes", limit, "TOKVIS_MAX_CORPUS_BYTES")


def body_limit(max_corpus_bytes: int, *max_file_bytes: int) -> int:
    """The largest request body worth reading: the biggest corpus, percent- or JSON-escaped (up
    to 3 bytes sent per byte of text), or the biggest file, plus room for the other fields."""
    return max(3 * max_corpus_bytes, *max_file_bytes) + 1_000_000


# ---- the body limit, and a GGUF model sent whole ---------------------------------------------------
GGUF_UPLOAD_PATHS = ("/api/tokenizers", "/tokenizers", "/unigram/lattice")  # tokenizer uploads


class BodyLimit:
    """No request body is read past `limit` bytes (`body_limit`): 413 as soon as the
    Content-Length says so (nothing read) or the bytes pass it, raised where the route reads
    the body, so the app's handlers answer it (`{"detail"}` under /api, the error page
    elsewhere) naming the settings.

    One exception: a GGUF model sent whole to a tokenizer upload (the upload form without
    JavaScript, curl `-F file=@model.gguf`) is taken up to `max_model_bytes` more
    (TOKVIS_MAX_GGUF_UPLOAD_MB). The docs promise that such an upload has its first part
    read (`uploads.read_tokenizer_file` keeps the first TOKVIS_MAX_TOKENIZER_BYTES of a GGUF,
    where its metadata is), and a user who picks a 4 GB model in the form expects it to load;
    with JavaScript the form sends only that prefix. What it costs stays bounded:
    - memory: Starlette's multipart parser spools a file part past 1 MB to a temporary file
      (`SpooledTemporaryFile`), and only the prefix is read back from it;
    - everything else in the body (the other fields, other files, a file that does not start
      with the GGUF magic) is still held to `limit`, counted as the body arrives by a second
      parse of the same stream (`OutsideTheModel`): no field, no file held in memory and no
      other format gets past it, and a 5 GB tokenizer.json gets its 413 after `limit` bytes;
    - disk: the model's bytes in the temporary directory while the request lasts (Starlette
      deletes the file after).

    (This replaces FastAPI's `max_body_size`, which every included router applies again at
    its routes, so no middleware could widen it for one path, and whose 413 is a bare
    "Content Too Large" in text, even under /api.)
    """

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        max_model_bytes: int = 0,
        model_paths: tuple[str, ...] = GGUF_UPLOAD_PATHS,
    ) -> None:
        self.app = app
        self.limit = limit
        self.max_model_bytes = max_model_bytes
        self.model_paths = model_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        boundary = self._model_upload_boundary(scope)
        most = self.limit + (self.max_model_bytes if boundary else 0)
        declared = _content_length(scope)
        count = OutsideTheModel(boundary) if boundary else None
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            if declared is not None and declared > most:
                raise self.too_large(f"{declared:,} bytes", model_upload=count is not None)
            message = await receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                seen += len(chunk)
                if seen > most:
                    raise self.too_large(f"over {most:,} bytes", model_upload=count is not None)
                if count is not None:
                    count.feed(chunk)
                    if count.outside > self.limit:
                        raise HTTPException(
                            413,
                            (
                                f"the upload is over {self.limit:,} bytes besides a GGUF model's "
                                "own bytes: only a GGUF model (of which the metadata at its start is "
                                "read) may be sent larger; a tokenizer file is limited by "
                                "TOKVIS_MAX_TOKENIZER_BYTES"
                            ),
                        )
            return message

        await self.app(scope, limited, send)

    def too_large(self, size_text: str, model_upload: bool) -> HTTPException:
        if model_upload:
            return HTTPException(
                413,
                (
                    f"the upload is {size_text}; the most this server reads is {self.limit:,} bytes "
                    f"plus a GGUF model of up to {self.max_model_bytes:,} bytes, of which only the "
                    "metadata at its start is kept (set TOKVIS_MAX_GGUF_UPLOAD_MB to change it; or "
                    "send the model's first TOKVIS_MAX_TOKENIZER_BYTES only, as the upload form "
                    "does with JavaScript on)"
                ),
            )
        return HTTPException(
            413,
            (
                f"the request is {size_text}; the most this server reads is {self.limit:,} bytes, "
                "the largest corpus or file its settings allow (TOKVIS_MAX_CORPUS_BYTES, "
                "TOKVIS_MAX_UPLOAD_BYTES, TOKVIS_MAX_TOKENIZER_BYTES), escaped, plus room for the "
                "other fields"
            ),
        )

    def _model_upload_boundary(self, scope: Scope) -> bytes | None:
        """The multipart boundary of a POST to a tokenizer upload path, else None."""
        if (
            not self.max_model_bytes
            or scope["method"] != "POST"
            or scope["path"] not in self.model_paths
        ):
            return None
        kind, options = parse_options_header(Headers(scope=scope).get("content-type", ""))
        if kind != b"multipart/form-data":
            return None
        return options.get(b"boundary") or None


def _content_length(scope: Scope) -> int | None:
    """The Content-Length header as a number, or None (absent, or not a plain number: the
    server's own parser refuses those before the app sees them)."""
    value = Headers(scope=scope).get("content-length", "")
    return int(value) if value.isdigit() and len(value) < 20 else None


class OutsideTheModel:
    """Counts a multipart body's bytes as they arrive, all but those of the first file part's
    data when that file is a GGUF model (it starts with the GGUF magic): `outside`.

    >>> head = (b'--b\\r\\nContent-Disposition: form-data; name="file"; filename="m.gguf"'
    ...         b'\\r\\n\\r\\n')
    >>> count = OutsideTheModel(b"b")
    >>> for chunk in (head, b"GG", b"UF" + bytes(1000), b"\\r\\n--b--\\r\\n"):
    ...     count.feed(chunk)
    >>> count.outside == len(head) + len(b"\\r\\n--b--\\r\\n")     # the 1,004 model bytes left out
    True

    A body it cannot parse is counted whole (Starlette's parser refuses it too).
    """

    def __init__(self, boundary: bytes) -> None:
        self.total = 0
        self.model = 0  # bytes of the first file part's data
        self.head = b""  # ... and its first 4
        self.files = 0
        self.in_first_file = False
        self.broken = False
        self._header = [b"", b""]
        self._disposition = b""
        self.parser = MultipartParser(
            boundary,
            {
                "on_part_begin": self._part_begin,
                "on_header_field": self._header_field,
                "on_header_value": self._header_value,
                "on_header_end": self._header_end,
                "on_headers_finished": self._headers_finished,
                "on_part_data": self._part_data,
            },
        )

    @property
    def outside(self) -> int:
        is_model = not self.broken and self.head == GGUF_MAGIC
        return self.total - (self.model if is_model else 0)

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if not self.broken:
            try:
                self.parser.write(chunk)
            except MultipartParseError:
                self.broken = True

    def _part_begin(self) -> None:
        self._disposition = b""
        self.in_first_file = False

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._header[0] += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._header[1] += data[start:end]

    def _header_end(self) -> None:
        name, value = self._header
        if name.lower() == b"content-disposition":
            self._disposition = value[:4096]
        self._header = [b"", b""]

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._disposition)
        if b"filename" in options:
            self.files += 1
            self.in_first_file = self.files == 1

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self.in_first_file:
            if len(self.head) < len(GGUF_MAGIC):
                self.head += data[start:end][: len(GGUF_MAGIC) - len(self.head)]
            self.model += end - start
