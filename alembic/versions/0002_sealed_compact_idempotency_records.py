"""idempotency records: HMAC'd keys, AEAD-sealed edit keys, compact snapshots instead of whole answers

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 22:40:00

The old records kept each write's whole answer (a long game's answer is large) and a new game's edit
key XORed with a pad made from the Idempotency-Key alone. They cannot be converted: the new records
are keyed by an HMAC of the Idempotency-Key under the server secret, and the database holds only a
SHA-256 of the old keys. They are dropped: records only serve retries within 48 hours, so the worst
an upgrade does is answer a retry that straddles it as a new request (a client's 412 or 409 then
tells it the first attempt landed, when it sent If-Match).
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _drop_records() -> None:
    with op.batch_alter_table("idempotency_record", schema=None) as batch_op:
        batch_op.drop_index("ix_idempotency_record_created_at")
    op.drop_table("idempotency_record")


def upgrade() -> None:
    _drop_records()
    op.create_table(
        "idempotency_record",
        sa.Column("scope", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("request_mac", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("operation", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("snapshot", sa.LargeBinary(), nullable=False),
        sa.Column("sealed_key", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope", "key"),
    )
    with op.batch_alter_table("idempotency_record", schema=None) as batch_op:
        batch_op.create_index("ix_idempotency_record_created_at", ["created_at"], unique=False)


def downgrade() -> None:
    _drop_records()
    op.create_table(
        "idempotency_record",
        sa.Column("scope", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("request_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope", "key"),
    )
    with op.batch_alter_table("idempotency_record", schema=None) as batch_op:
        batch_op.create_index("ix_idempotency_record_created_at", ["created_at"], unique=False)
