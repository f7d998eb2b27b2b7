import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AuditEntry(_message.Message):
    __slots__ = ("seq", "at", "actor_kind", "actor_key_id", "actor_session_id", "actor_member_id", "client_ip", "user_agent", "action", "target_kind", "target_id", "form_id", "changed", "outcome", "hash", "prev_hash")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    ACTOR_KIND_FIELD_NUMBER: _ClassVar[int]
    ACTOR_KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_MEMBER_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_IP_FIELD_NUMBER: _ClassVar[int]
    USER_AGENT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_KIND_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    PREV_HASH_FIELD_NUMBER: _ClassVar[int]
    seq: int
    at: _timestamp_pb2.Timestamp
    actor_kind: str
    actor_key_id: str
    actor_session_id: str
    actor_member_id: str
    client_ip: str
    user_agent: str
    action: str
    target_kind: str
    target_id: str
    form_id: str
    changed: _containers.RepeatedScalarFieldContainer[str]
    outcome: str
    hash: str
    prev_hash: str
    def __init__(self, seq: _Optional[int] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., actor_kind: _Optional[str] = ..., actor_key_id: _Optional[str] = ..., actor_session_id: _Optional[str] = ..., actor_member_id: _Optional[str] = ..., client_ip: _Optional[str] = ..., user_agent: _Optional[str] = ..., action: _Optional[str] = ..., target_kind: _Optional[str] = ..., target_id: _Optional[str] = ..., form_id: _Optional[str] = ..., changed: _Optional[_Iterable[str]] = ..., outcome: _Optional[str] = ..., hash: _Optional[str] = ..., prev_hash: _Optional[str] = ...) -> None: ...

class ListAuditEntriesRequest(_message.Message):
    __slots__ = ("limit", "cursor", "actor", "action", "form_id", "since", "until")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    limit: int
    cursor: str
    actor: str
    action: str
    form_id: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    def __init__(self, limit: _Optional[int] = ..., cursor: _Optional[str] = ..., actor: _Optional[str] = ..., action: _Optional[str] = ..., form_id: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListAuditEntriesResponse(_message.Message):
    __slots__ = ("entries", "next_cursor")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_CURSOR_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AuditEntry]
    next_cursor: str
    def __init__(self, entries: _Optional[_Iterable[_Union[AuditEntry, _Mapping]]] = ..., next_cursor: _Optional[str] = ...) -> None: ...

class ExportAuditEntriesRequest(_message.Message):
    __slots__ = ("actor", "action", "form_id", "since", "until")
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    actor: str
    action: str
    form_id: str
    since: _timestamp_pb2.Timestamp
    until: _timestamp_pb2.Timestamp
    def __init__(self, actor: _Optional[str] = ..., action: _Optional[str] = ..., form_id: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., until: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExportAuditEntriesResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...

class VerifyAuditTrailRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class VerifyAuditTrailResponse(_message.Message):
    __slots__ = ("chains", "entries", "ok", "broken_chain", "broken_seq", "reason")
    CHAINS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    BROKEN_CHAIN_FIELD_NUMBER: _ClassVar[int]
    BROKEN_SEQ_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    chains: int
    entries: int
    ok: bool
    broken_chain: str
    broken_seq: int
    reason: str
    def __init__(self, chains: _Optional[int] = ..., entries: _Optional[int] = ..., ok: _Optional[bool] = ..., broken_chain: _Optional[str] = ..., broken_seq: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...
