import datetime

from forms.v1 import dashboard_pb2 as _dashboard_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Member(_message.Message):
    __slots__ = ("person_id", "email", "role", "joined_at", "is_caller")
    PERSON_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    JOINED_AT_FIELD_NUMBER: _ClassVar[int]
    IS_CALLER_FIELD_NUMBER: _ClassVar[int]
    person_id: str
    email: str
    role: str
    joined_at: _timestamp_pb2.Timestamp
    is_caller: bool
    def __init__(self, person_id: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ..., joined_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., is_caller: _Optional[bool] = ...) -> None: ...

class Invitation(_message.Message):
    __slots__ = ("id", "email", "role", "created_at", "expires_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    email: str
    role: str
    created_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., email: _Optional[str] = ..., role: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListMembersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMembersResponse(_message.Message):
    __slots__ = ("members", "invitations", "caller_role")
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    CALLER_ROLE_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[Member]
    invitations: _containers.RepeatedCompositeFieldContainer[Invitation]
    caller_role: str
    def __init__(self, members: _Optional[_Iterable[_Union[Member, _Mapping]]] = ..., invitations: _Optional[_Iterable[_Union[Invitation, _Mapping]]] = ..., caller_role: _Optional[str] = ...) -> None: ...

class InviteMemberRequest(_message.Message):
    __slots__ = ("email", "role")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    email: str
    role: str
    def __init__(self, email: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class InviteMemberResponse(_message.Message):
    __slots__ = ("invitation", "token", "mailed")
    INVITATION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    MAILED_FIELD_NUMBER: _ClassVar[int]
    invitation: Invitation
    token: str
    mailed: bool
    def __init__(self, invitation: _Optional[_Union[Invitation, _Mapping]] = ..., token: _Optional[str] = ..., mailed: _Optional[bool] = ...) -> None: ...

class RevokeInvitationRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RevokeInvitationResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetInvitationRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class GetInvitationResponse(_message.Message):
    __slots__ = ("account_name", "role", "email", "expires_at")
    ACCOUNT_NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    account_name: str
    role: str
    email: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, account_name: _Optional[str] = ..., role: _Optional[str] = ..., email: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class AcceptInvitationRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class AcceptInvitationResponse(_message.Message):
    __slots__ = ("session", "role")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    session: _dashboard_pb2.DashboardSession
    role: str
    def __init__(self, session: _Optional[_Union[_dashboard_pb2.DashboardSession, _Mapping]] = ..., role: _Optional[str] = ...) -> None: ...

class ChangeMemberRoleRequest(_message.Message):
    __slots__ = ("person_id", "role")
    PERSON_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    person_id: str
    role: str
    def __init__(self, person_id: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class ChangeMemberRoleResponse(_message.Message):
    __slots__ = ("member",)
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    member: Member
    def __init__(self, member: _Optional[_Union[Member, _Mapping]] = ...) -> None: ...

class RemoveMemberRequest(_message.Message):
    __slots__ = ("person_id",)
    PERSON_ID_FIELD_NUMBER: _ClassVar[int]
    person_id: str
    def __init__(self, person_id: _Optional[str] = ...) -> None: ...

class RemoveMemberResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LeaveAccountRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LeaveAccountResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Membership(_message.Message):
    __slots__ = ("account_id", "account_name", "role", "current")
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    account_name: str
    role: str
    current: bool
    def __init__(self, account_id: _Optional[str] = ..., account_name: _Optional[str] = ..., role: _Optional[str] = ..., current: _Optional[bool] = ...) -> None: ...

class ListMyAccountsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMyAccountsResponse(_message.Message):
    __slots__ = ("accounts",)
    ACCOUNTS_FIELD_NUMBER: _ClassVar[int]
    accounts: _containers.RepeatedCompositeFieldContainer[Membership]
    def __init__(self, accounts: _Optional[_Iterable[_Union[Membership, _Mapping]]] = ...) -> None: ...

class SwitchAccountRequest(_message.Message):
    __slots__ = ("account_id",)
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    account_id: str
    def __init__(self, account_id: _Optional[str] = ...) -> None: ...

class SwitchAccountResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: _dashboard_pb2.DashboardSession
    def __init__(self, session: _Optional[_Union[_dashboard_pb2.DashboardSession, _Mapping]] = ...) -> None: ...
