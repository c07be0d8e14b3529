"""Errors: one tree, one list of codes.

Every refusal the sidecar answers carries a stable ``code`` (an :class:`ErrorCode`, part of the wire
contract: the schema lists them) and a ``message`` that says what to fix. Every error the sidecar raises
for a refusal is a :class:`VerdictError`, always built as ``SomeError(code, message)``::

    VerdictError(code, message)           protocol/v1/errors.py
    ├── ProtocolError(code, message, id)  protocol/v1/codec.py               a frame or message that does not decode
    ├── CheckError(code, message)         sidecar/engine/errors.py           a check the rules cannot make as asked
    │   ├── DiceError                                                        supplied faces that do not fit the check
    │   └── FollowUpError                                                    a follow-up the rules forbid
    ├── Refused(code, message)            sidecar/state/keys.py              a ``hello`` whose key is refused
    ├── ActionError(code, message)        sidecar/state/errors.py            an action the table refuses
    ├── LedgerUnavailable(message)        sidecar/state/ledger/protocols.py  the ledger cannot be read or written now
    ├── CliError(code, message)           sidecar/cli_checks.py              a usage error (exit status 2)
    └── RequestFailed(error)              sidecar/client.py                  the sidecar's ``error`` reply, client side

The server answers every one of them the same way: ``{"type": "error", "id", "code", "message"}``.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Every code an ``error`` reply (or an HTTP refusal's JSON body) may carry."""

    # --- connection and framing (the server)
    HELLO_REQUIRED = "hello_required"
    UNAUTHORIZED = "unauthorized"
    USER_KEY_REQUIRED = "user_key_required"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    UNSUPPORTED_SUBPROTOCOL = "unsupported_subprotocol"
    ORIGIN_NOT_ALLOWED = "origin_not_allowed"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    METRICS_FORBIDDEN = "metrics_forbidden"
    RATE_LIMITED = "rate_limited"
    FRAME_TOO_LARGE = "frame_too_large"
    BAD_FRAME = "bad_frame"
    BAD_MESSAGE = "bad_message"
    INVALID_MESSAGE = "invalid_message"
    UNKNOWN_TYPE = "unknown_type"
    TEXT_TOO_LONG = "text_too_long"
    DUPLICATE_ID = "duplicate_id"
    ALREADY_JOINED = "already_joined"
    BUSY = "busy"
    UNSUPPORTED = "unsupported"
    INTERNAL_ERROR = "internal_error"
    LEDGER_UNAVAILABLE = "ledger_unavailable"
    FORBIDDEN = "forbidden"

    # --- the table (actions, GM operations, follow-ups)
    UNKNOWN_CHECK = "unknown_check"
    ACTOR_REQUIRED = "actor_required"
    NOT_YOUR_CHECK = "not_your_check"
    FOLLOWUP_REFUSED = "followup_refused"
    FORBIDDEN_FOLLOWUP = "forbidden_followup"
    UNKNOWN_FOLLOWUP = "unknown_followup"
    UNKNOWN_GATHER = "unknown_gather"
    GATHER_COMPLETE = "gather_complete"
    UNKNOWN_PART = "unknown_part"
    PART_ALREADY_ROLLED = "part_already_rolled"
    NOT_A_GATHERED_CHECK = "not_a_gathered_check"
    UNKNOWN_EXTENDED = "unknown_extended"
    UNKNOWN_COMPLICATION = "unknown_complication"
    COMPLICATION_NOT_CONVERTED = "complication_not_converted"
    DIFFICULTY_MISMATCH = "difficulty_mismatch"
    UNKNOWN_CONDITION = "unknown_condition"
    UNKNOWN_FACET = "unknown_facet"
    NO_SUCH_HARM = "no_such_harm"
    INSUFFICIENT_WYRD = "insufficient_wyrd"
    ALREADY_REVEALED = "already_revealed"
    NOTHING_TO_UNDO = "nothing_to_undo"
    INVALID_OP = "invalid_op"
    UNKNOWN_OP = "unknown_op"
    UNKNOWN_TRIAL = "unknown_trial"

    # --- what a table holds (protocol/v1/limits.py): one item too many, or a running value past its bound
    TOO_MANY_ACTORS = "too_many_actors"
    TOO_MANY_SCENES = "too_many_scenes"
    TOO_MANY_FACETS = "too_many_facets"
    TOO_MANY_COMPLICATIONS = "too_many_complications"
    TOO_MANY_CONDITIONS = "too_many_conditions"
    TOO_MANY_OPEN = "too_many_open"
    OVER_LIMIT = "over_limit"

    # --- checks and dice (every rule set)
    INVALID_CHECK = "invalid_check"
    INVALID_DICE = "invalid_dice"
    UNSUPPORTED_SYSTEM = "unsupported_system"
    INVALID_RULES = "invalid_rules"
    TOO_MANY_DICE = "too_many_dice"

    # --- the command line
    USAGE = "usage"

    # --- the rule sets' own refusals
    AMBIGUOUS_LEVEL = "ambiguous_level"
    BARGAIN_IN_GROUP_CHECK = "bargain_in_group_check"
    BARGAIN_NEEDS_RANK = "bargain_needs_rank"
    BARGAIN_NOT_FAILURE = "bargain_not_failure"
    BARGAIN_TWICE = "bargain_twice"
    BOUGHT_DICE_SUPPLIED = "bought_dice_supplied"
    CHOICE_ALREADY_MADE = "choice_already_made"
    CHOICE_IN_SIMPLE_CHECK = "choice_in_simple_check"
    COMPLICATION_ALREADY_REMOVED = "complication_already_removed"
    DUPLICATE_PARTICIPANT = "duplicate_participant"
    EMPTY_GROUP = "empty_group"
    EXTENDED_COMPLETE = "extended_complete"
    EXTENDED_FAILED = "extended_failed"
    FLAIR_CHOSEN_TWICE = "flair_chosen_twice"
    FLAIRS_ALREADY_CHOSEN = "flairs_already_chosen"
    GROUP_CHECK_FIELDS = "group_check_fields"
    INCOMPLETE_EXTENDED = "incomplete_extended"
    INCOMPLETE_GROUP = "incomplete_group"
    INVALID_CL = "invalid_cl"
    INVALID_COMPLICATION = "invalid_complication"
    INVALID_LIMIT = "invalid_limit"
    INVALID_PROGRESS = "invalid_progress"
    INVALID_THRESHOLD = "invalid_threshold"
    INVALID_WYRD = "invalid_wyrd"
    LURKING_ALREADY_SET = "lurking_already_set"
    LURKING_COUNT_MISMATCH = "lurking_count_mismatch"
    LURKING_NOT_SET = "lurking_not_set"
    MISSING_LEVEL = "missing_level"
    MISSING_RANK = "missing_rank"
    NEGATIVE_DICE = "negative_dice"
    NEGATIVE_RANK = "negative_rank"
    NO_CHOICE_OFFERED = "no_choice_offered"
    NO_COMPLICATION_TO_REMOVE = "no_complication_to_remove"
    NO_LURKING_TRIALS = "no_lurking_trials"
    NO_TRIALS_TO_NAME = "no_trials_to_name"
    OPPOSED_DIFFICULTY = "opposed_difficulty"
    OPPOSED_EXTENDED = "opposed_extended"
    REVEAL_BEFORE_CHOICE = "reveal_before_choice"
    SIMPLE_CHECK_TRIALS = "simple_check_trials"
    TOO_MANY_ASSISTS = "too_many_assists"
    TOO_MANY_FLAIRS = "too_many_flairs"
    TOO_MANY_LURKING = "too_many_lurking"
    TOO_MANY_PARTICIPANTS = "too_many_participants"
    TRAP_NEEDS_GROUP = "trap_needs_group"
    TRIAL_COUNT_MISMATCH = "trial_count_mismatch"
    TRIALS_ALREADY_NAMED = "trials_already_named"
    TRIALS_AND_DICE = "trials_and_dice"
    UNKNOWN_FLAIR = "unknown_flair"
    UPGRADE_EXCEEDS_TRIAL = "upgrade_exceeds_trial"
    WYRD_DICE_MISMATCH = "wyrd_dice_mismatch"
    WYRD_DICE_REPEATED = "wyrd_dice_repeated"
    WYRD_FEAT_NOT_NEEDED = "wyrd_feat_not_needed"
    WYRD_FEAT_REQUIRED = "wyrd_feat_required"
    WYRD_NOT_ROLLED = "wyrd_not_rolled"


class VerdictError(Exception):
    """A refusal with a stable :class:`ErrorCode` and a message that says what to fix."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)  # also checked at run time: a code outside the list is a bug
        self.message = message

    def __str__(self) -> str:
        return self.message


__all__ = ["ErrorCode", "VerdictError"]
