from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExportAccountRequest(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: str
    def __init__(self, account: _Optional[str] = ...) -> None: ...

class ExportAccountResponse(_message.Message):
    __slots__ = ("chunk",)
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    def __init__(self, chunk: _Optional[bytes] = ...) -> None: ...

class ImportAccountRequest(_message.Message):
    __slots__ = ("chunk",)
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    def __init__(self, chunk: _Optional[bytes] = ...) -> None: ...

class ImportedWebhook(_message.Message):
    __slots__ = ("id", "form_id", "url", "secret")
    ID_FIELD_NUMBER: _ClassVar[int]
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    id: str
    form_id: str
    url: str
    secret: str
    def __init__(self, id: _Optional[str] = ..., form_id: _Optional[str] = ..., url: _Optional[str] = ..., secret: _Optional[str] = ...) -> None: ...

class ImportAccountResponse(_message.Message):
    __slots__ = ("account_id", "account_name", "forms", "responses", "partial_responses", "files", "webhooks")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_NAME_FIELD_NUMBER: _ClassVar[int]
    FORMS_FIELD_NUMBER: _ClassVar[int]
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_RESPONSES_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    WEBHOOKS_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    account_name: str
    forms: int
    responses: int
    partial_responses: int
    files: int
    webhooks: _containers.RepeatedCompositeFieldContainer[ImportedWebhook]
    def __init__(self, account_id: _Optional[str] = ..., account_name: _Optional[str] = ..., forms: _Optional[int] = ..., responses: _Optional[int] = ..., partial_responses: _Optional[int] = ..., files: _Optional[int] = ..., webhooks: _Optional[_Iterable[_Union[ImportedWebhook, _Mapping]]] = ...) -> None: ...
