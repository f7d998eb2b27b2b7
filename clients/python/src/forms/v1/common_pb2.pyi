from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class PagePagination(_message.Message):
    __slots__ = ("total", "page", "per_page", "total_pages")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    total: int
    page: int
    per_page: int
    total_pages: int
    def __init__(self, total: _Optional[int] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ...) -> None: ...

class CursorPagination(_message.Message):
    __slots__ = ("per_page", "next_cursor")
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    per_page: int
    next_cursor: str
    def __init__(self, per_page: _Optional[int] = ..., next_cursor: _Optional[str] = ...) -> None: ...
