import datetime

from forms.v1 import admin_pb2 as _admin_pb2
from forms.v1 import forms_pb2 as _forms_pb2
from forms.v1 import usage_pb2 as _usage_pb2
from forms.v1 import webhooks_pb2 as _webhooks_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DashboardSession(_message.Message):
    __slots__ = ("token", "csrf_token", "account_id", "account_name", "expires_at", "method", "role")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    CSRF_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ID_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_NAME_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    token: str
    csrf_token: str
    account_id: str
    account_name: str
    expires_at: _timestamp_pb2.Timestamp
    method: str
    role: str
    def __init__(self, token: _Optional[str] = ..., csrf_token: _Optional[str] = ..., account_id: _Optional[str] = ..., account_name: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., method: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class CreateSignInLinkRequest(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: str
    def __init__(self, account: _Optional[str] = ...) -> None: ...

class CreateSignInLinkResponse(_message.Message):
    __slots__ = ("token", "expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MailSignInLinkRequest(_message.Message):
    __slots__ = ("email", "base_url")
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    email: str
    base_url: str
    def __init__(self, email: _Optional[str] = ..., base_url: _Optional[str] = ...) -> None: ...

class MailSignInLinkResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RedeemSignInLinkRequest(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class RedeemSignInLinkResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: DashboardSession
    def __init__(self, session: _Optional[_Union[DashboardSession, _Mapping]] = ...) -> None: ...

class SignInWithProviderCookieRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SignInWithProviderCookieResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: DashboardSession
    def __init__(self, session: _Optional[_Union[DashboardSession, _Mapping]] = ...) -> None: ...

class BeginOidcSignInRequest(_message.Message):
    __slots__ = ("redirect_uri",)
    REDIRECT_URI_FIELD_NUMBER: _ClassVar[int]
    redirect_uri: str
    def __init__(self, redirect_uri: _Optional[str] = ...) -> None: ...

class BeginOidcSignInResponse(_message.Message):
    __slots__ = ("authorization_url", "state")
    AUTHORIZATION_URL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    authorization_url: str
    state: str
    def __init__(self, authorization_url: _Optional[str] = ..., state: _Optional[str] = ...) -> None: ...

class FinishOidcSignInRequest(_message.Message):
    __slots__ = ("state", "code")
    STATE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    state: str
    code: str
    def __init__(self, state: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class FinishOidcSignInResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: DashboardSession
    def __init__(self, session: _Optional[_Union[DashboardSession, _Mapping]] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: DashboardSession
    def __init__(self, session: _Optional[_Union[DashboardSession, _Mapping]] = ...) -> None: ...

class EndSessionRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EndSessionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LinkedIdentity(_message.Message):
    __slots__ = ("subject", "created_at", "issuer")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ISSUER_FIELD_NUMBER: _ClassVar[int]
    subject: str
    created_at: _timestamp_pb2.Timestamp
    issuer: str
    def __init__(self, subject: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., issuer: _Optional[str] = ...) -> None: ...

class GetOwnAccountRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetOwnAccountResponse(_message.Message):
    __slots__ = ("account", "rate_limit_per_minute", "responses_this_month", "monthly_response_limit", "identities", "notifications_mailed", "default_theme")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    RATE_LIMIT_PER_MINUTE_FIELD_NUMBER: _ClassVar[int]
    RESPONSES_THIS_MONTH_FIELD_NUMBER: _ClassVar[int]
    MONTHLY_RESPONSE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATIONS_MAILED_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_THEME_FIELD_NUMBER: _ClassVar[int]
    account: _admin_pb2.Account
    rate_limit_per_minute: int
    responses_this_month: int
    monthly_response_limit: int
    identities: _containers.RepeatedCompositeFieldContainer[LinkedIdentity]
    notifications_mailed: bool
    default_theme: _forms_pb2.FormTheme
    def __init__(self, account: _Optional[_Union[_admin_pb2.Account, _Mapping]] = ..., rate_limit_per_minute: _Optional[int] = ..., responses_this_month: _Optional[int] = ..., monthly_response_limit: _Optional[int] = ..., identities: _Optional[_Iterable[_Union[LinkedIdentity, _Mapping]]] = ..., notifications_mailed: _Optional[bool] = ..., default_theme: _Optional[_Union[_forms_pb2.FormTheme, _Mapping]] = ...) -> None: ...

class UpdateOwnAccountRequest(_message.Message):
    __slots__ = ("email",)
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    email: str
    def __init__(self, email: _Optional[str] = ...) -> None: ...

class UpdateOwnAccountResponse(_message.Message):
    __slots__ = ("account",)
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    account: _admin_pb2.Account
    def __init__(self, account: _Optional[_Union[_admin_pb2.Account, _Mapping]] = ...) -> None: ...

class SetOwnDefaultThemeRequest(_message.Message):
    __slots__ = ("theme",)
    THEME_FIELD_NUMBER: _ClassVar[int]
    theme: _forms_pb2.FormTheme
    def __init__(self, theme: _Optional[_Union[_forms_pb2.FormTheme, _Mapping]] = ...) -> None: ...

class SetOwnDefaultThemeResponse(_message.Message):
    __slots__ = ("theme",)
    THEME_FIELD_NUMBER: _ClassVar[int]
    theme: _forms_pb2.FormTheme
    def __init__(self, theme: _Optional[_Union[_forms_pb2.FormTheme, _Mapping]] = ...) -> None: ...

class UnlinkOwnIdentityRequest(_message.Message):
    __slots__ = ("subject", "issuer")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    ISSUER_FIELD_NUMBER: _ClassVar[int]
    subject: str
    issuer: str
    def __init__(self, subject: _Optional[str] = ..., issuer: _Optional[str] = ...) -> None: ...

class UnlinkOwnIdentityResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class OwnKey(_message.Message):
    __slots__ = ("key", "last_used_on", "session_key", "label")
    KEY_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_ON_FIELD_NUMBER: _ClassVar[int]
    SESSION_KEY_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    key: _admin_pb2.ApiKey
    last_used_on: str
    session_key: bool
    label: str
    def __init__(self, key: _Optional[_Union[_admin_pb2.ApiKey, _Mapping]] = ..., last_used_on: _Optional[str] = ..., session_key: _Optional[bool] = ..., label: _Optional[str] = ...) -> None: ...

class ListOwnKeysRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListOwnKeysResponse(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[OwnKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[OwnKey, _Mapping]]] = ...) -> None: ...

class CreateOwnKeyRequest(_message.Message):
    __slots__ = ("scopes", "expires_at", "label")
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    scopes: _containers.RepeatedScalarFieldContainer[_admin_pb2.Scope]
    expires_at: _timestamp_pb2.Timestamp
    label: str
    def __init__(self, scopes: _Optional[_Iterable[_Union[_admin_pb2.Scope, str]]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., label: _Optional[str] = ...) -> None: ...

class CreateOwnKeyResponse(_message.Message):
    __slots__ = ("secret", "key")
    SECRET_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    secret: str
    key: _admin_pb2.ApiKey
    def __init__(self, secret: _Optional[str] = ..., key: _Optional[_Union[_admin_pb2.ApiKey, _Mapping]] = ...) -> None: ...

class RevokeOwnKeyRequest(_message.Message):
    __slots__ = ("key_id",)
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    def __init__(self, key_id: _Optional[str] = ...) -> None: ...

class RevokeOwnKeyResponse(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: _admin_pb2.ApiKey
    def __init__(self, key: _Optional[_Union[_admin_pb2.ApiKey, _Mapping]] = ...) -> None: ...

class GetOwnKeyUsageRequest(_message.Message):
    __slots__ = ("key_id", "days")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    DAYS_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    days: int
    def __init__(self, key_id: _Optional[str] = ..., days: _Optional[int] = ...) -> None: ...

class GetOwnKeyUsageResponse(_message.Message):
    __slots__ = ("usage",)
    USAGE_FIELD_NUMBER: _ClassVar[int]
    usage: _usage_pb2.Usage
    def __init__(self, usage: _Optional[_Union[_usage_pb2.Usage, _Mapping]] = ...) -> None: ...

class UpdateOwnWebhookRequest(_message.Message):
    __slots__ = ("form_id", "webhook_id", "webhook", "update_mask")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    webhook_id: str
    webhook: _webhooks_pb2.Webhook
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, form_id: _Optional[str] = ..., webhook_id: _Optional[str] = ..., webhook: _Optional[_Union[_webhooks_pb2.Webhook, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateOwnWebhookResponse(_message.Message):
    __slots__ = ("webhook",)
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    webhook: _webhooks_pb2.Webhook
    def __init__(self, webhook: _Optional[_Union[_webhooks_pb2.Webhook, _Mapping]] = ...) -> None: ...

class ListOwnDeliveriesRequest(_message.Message):
    __slots__ = ("form_id", "webhook_id", "page", "per_page")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    webhook_id: str
    page: int
    per_page: int
    def __init__(self, form_id: _Optional[str] = ..., webhook_id: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ...) -> None: ...

class ListOwnDeliveriesResponse(_message.Message):
    __slots__ = ("deliveries",)
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[_admin_pb2.Delivery]
    def __init__(self, deliveries: _Optional[_Iterable[_Union[_admin_pb2.Delivery, _Mapping]]] = ...) -> None: ...

class RetryOwnDeliveryRequest(_message.Message):
    __slots__ = ("form_id", "webhook_id", "delivery_id")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    DELIVERY_ID_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    webhook_id: str
    delivery_id: str
    def __init__(self, form_id: _Optional[str] = ..., webhook_id: _Optional[str] = ..., delivery_id: _Optional[str] = ...) -> None: ...

class RetryOwnDeliveryResponse(_message.Message):
    __slots__ = ("delivery",)
    DELIVERY_FIELD_NUMBER: _ClassVar[int]
    delivery: _admin_pb2.Delivery
    def __init__(self, delivery: _Optional[_Union[_admin_pb2.Delivery, _Mapping]] = ...) -> None: ...

class SendOwnDeliveryNowRequest(_message.Message):
    __slots__ = ("form_id", "webhook_id", "delivery_id")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    DELIVERY_ID_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    webhook_id: str
    delivery_id: str
    def __init__(self, form_id: _Optional[str] = ..., webhook_id: _Optional[str] = ..., delivery_id: _Optional[str] = ...) -> None: ...

class SendOwnDeliveryNowResponse(_message.Message):
    __slots__ = ("delivery",)
    DELIVERY_FIELD_NUMBER: _ClassVar[int]
    delivery: _admin_pb2.Delivery
    def __init__(self, delivery: _Optional[_Union[_admin_pb2.Delivery, _Mapping]] = ...) -> None: ...

class SendTestEventRequest(_message.Message):
    __slots__ = ("form_id", "webhook_id")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_ID_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    webhook_id: str
    def __init__(self, form_id: _Optional[str] = ..., webhook_id: _Optional[str] = ...) -> None: ...

class SendTestEventResponse(_message.Message):
    __slots__ = ("delivery",)
    DELIVERY_FIELD_NUMBER: _ClassVar[int]
    delivery: _admin_pb2.Delivery
    def __init__(self, delivery: _Optional[_Union[_admin_pb2.Delivery, _Mapping]] = ...) -> None: ...

class GetFormActivityRequest(_message.Message):
    __slots__ = ("form_ids", "days")
    FORM_IDS_FIELD_NUMBER: _ClassVar[int]
    DAYS_FIELD_NUMBER: _ClassVar[int]
    form_ids: _containers.RepeatedScalarFieldContainer[str]
    days: int
    def __init__(self, form_ids: _Optional[_Iterable[str]] = ..., days: _Optional[int] = ...) -> None: ...

class GetFormActivityResponse(_message.Message):
    __slots__ = ("forms",)
    FORMS_FIELD_NUMBER: _ClassVar[int]
    forms: _containers.RepeatedCompositeFieldContainer[FormActivity]
    def __init__(self, forms: _Optional[_Iterable[_Union[FormActivity, _Mapping]]] = ...) -> None: ...

class FormActivity(_message.Message):
    __slots__ = ("form_id", "response_count", "last_response_at", "daily")
    FORM_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_RESPONSE_AT_FIELD_NUMBER: _ClassVar[int]
    DAILY_FIELD_NUMBER: _ClassVar[int]
    form_id: str
    response_count: int
    last_response_at: _timestamp_pb2.Timestamp
    daily: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, form_id: _Optional[str] = ..., response_count: _Optional[int] = ..., last_response_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., daily: _Optional[_Iterable[int]] = ...) -> None: ...
