"""Wire protocol v1: every message round-trips, and every kind of bad frame is rejected with
`bad_message`, the right human message and, where the protocol says so, the command's id."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ubao.engine.games import GAMES
from ubao.protocol import (
    COMMAND_TYPES,
    PROTOCOL_VERSION,
    SERVER_MESSAGE_TYPES,
    SPEED_NAMES,
    Abort,
    Analyse,
    AnalysisEvent,
    BotInfo,
    Cancel,
    Claim,
    Clocks,
    ClockSpec,
    Create,
    Draw,
    DrawAnswer,
    DrawOffer,
    Error,
    ErrorCode,
    GameAnalysis,
    GameSummary,
    Hello,
    Join,
    ListGames,
    Lobby,
    Message,
    Move,
    Moved,
    Ok,
    Over,
    PairingLine,
    Ping,
    Player,
    PlayerCard,
    PlyAnalysis,
    PoolRating,
    ProtocolError,
    RatedResult,
    RatingChange,
    Ratings,
    Rematch,
    RematchAnswer,
    RematchOffer,
    Resign,
    Result,
    Resume,
    Rotate,
    SeatEvent,
    SeatInfo,
    SeatSpec,
    SideAnalysis,
    Snapshot,
    StandingLine,
    Takeback,
    TakebackAnswer,
    TakebackRequest,
    TournamentEvent,
    TournamentJoin,
    TournamentList,
    TournamentNew,
    TournamentShow,
    TournamentStart,
    TournamentSummary,
    TournamentView,
    UnsupportedVersion,
    Watch,
    decode,
    decode_command,
    decode_server_message,
    encode,
    to_wire,
)

# -- strategies for valid messages -------------------------------------------------------------

ids = st.integers(0, 2**63 - 1)
int64 = st.integers(-(2**63), 2**63 - 1)
counts = st.integers(0, 2**40)
seats = st.sampled_from([0, 1])
printable = st.characters(blacklist_categories=("C", "Zl", "Zp", "Zs")) | st.just(" ")
"""What `str.isprintable` accepts: the only text the protocol carries."""
texts = st.text(printable, min_size=1, max_size=20)
moves = st.text(printable, min_size=1, max_size=8)
names = st.text(printable, min_size=1, max_size=64)
player_names = names.filter(lambda name: name.strip() == name)
"""What `hello` takes: no space at either end."""
keys = st.text(printable, min_size=16, max_size=128)
statuses = st.sampled_from(["waiting", "playing", "over"])
game_names = st.from_regex(r"[a-z0-9_]{1,32}", fullmatch=True)
plain = st.recursive(
    st.none()
    | st.booleans()
    | int64
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(printable, max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
options = st.dictionaries(texts, plain, max_size=4)
maybe = st.none().__or__
seat_specs = (
    st.just(SeatSpec.open())
    | st.builds(SeatSpec.external_bot, maybe(st.integers(1, 64)))
    | st.builds(
        SeatSpec.bot,
        st.integers(1, 64),
        time_ms=maybe(st.integers(1, 3_600_000)),
        eval=maybe(texts),
        algorithm=maybe(texts),
    )
)
clock_specs = st.builds(ClockSpec, st.integers(1, 10**8), st.integers(0, 10**6))
clocks = st.builds(Clocks, st.tuples(counts, counts), maybe(seats), counts)
results = st.builds(Result, maybe(seats), texts, maybe(st.tuples(int64, int64)))
seat_infos = st.builds(
    SeatInfo,
    st.sampled_from(["open", "bot"]),
    maybe(names),
    st.booleans(),
    st.booleans(),
    maybe(counts),
    maybe(counts),
    maybe(names),
    maybe(names),
    maybe(names),
    maybe(names),
    st.booleans(),
)
two_seats = st.tuples(seat_infos, seat_infos)
move_lists = st.lists(moves, max_size=5).map(tuple)
bot_infos = st.builds(BotInfo, counts, int64, counts, counts, move_lists, maybe(int64))
client_bot_infos = st.builds(BotInfo, counts, int64, counts, counts, move_lists, maybe(int64))
summaries = st.builds(
    GameSummary,
    texts,
    texts,
    options,
    statuses,
    counts,
    two_seats,
    maybe(clock_specs),
    maybe(counts),
)

pools = st.sampled_from(["kalah/blitz", "bao/untimed", "othello/classical"])
ratings = st.integers(-100_000, 100_000)
rating_changes = st.builds(RatingChange, names, pools, ratings, ratings, counts, st.booleans())
pool_ratings = st.builds(
    PoolRating, names, pools, ratings, counts, counts, counts, counts, counts, st.booleans()
)
rated_results = st.builds(
    RatedResult,
    texts,
    pools,
    counts,
    names,
    st.sampled_from(["win", "draw", "loss"]),
    ratings,
    ratings,
)
player_cards = st.builds(
    PlayerCard,
    names,
    st.lists(pool_ratings, max_size=3).map(tuple),
    st.lists(rated_results, max_size=3).map(tuple),
)

decimals = st.from_regex(r"[0-9]{1,4}(\.[0-9]{1,2})?", fullmatch=True)
formats = st.sampled_from(["round_robin", "swiss", "arena"])
standing_lines = st.builds(
    StandingLine,
    st.integers(1, 100),
    counts,
    decimals,
    counts,
    counts,
    counts,
    counts,
    counts,
    decimals,
    decimals,
    ratings,
)
pairing_lines = st.builds(
    PairingLine,
    st.integers(1, 100),
    counts,
    maybe(counts),
    maybe(texts),
    maybe(st.sampled_from(["1-0", "½-½", "0-1", "*"])),
)
cells = st.text(st.sampled_from("10½*"), max_size=4)
tournament_views = st.builds(
    TournamentView,
    texts,
    names,
    game_names,
    formats,
    st.sampled_from(["open", "running", "finished", "cancelled"]),
    st.sampled_from(["standard", "kgp"]),
    st.booleans(),
    counts,
    counts,
    st.lists(names, max_size=3).map(tuple),
    st.lists(names, max_size=3).map(tuple),
    st.lists(standing_lines, max_size=3).map(tuple),
    st.lists(pairing_lines, max_size=3).map(tuple),
    st.lists(st.lists(cells, max_size=3).map(tuple), max_size=3).map(tuple),
    maybe(counts),
)

tournament_summaries = st.builds(
    TournamentSummary,
    texts,
    names,
    game_names,
    formats,
    st.sampled_from(["open", "running", "finished", "cancelled"]),
    counts,
    counts,
    counts,
    maybe(names),
)

finite = st.floats(allow_nan=False, allow_infinity=False)
marks = st.sampled_from(["", "inaccuracy", "mistake", "blunder"])
ply_analyses = st.builds(
    PlyAnalysis,
    counts,
    seats,
    moves,
    moves,
    move_lists,
    finite,
    finite,
    finite,
    marks,
    counts,
    counts,
    counts,
    st.booleans(),
)
side_analyses = st.builds(SideAnalysis, finite, finite, counts, counts, counts)
analyses = st.builds(
    GameAnalysis,
    st.integers(1, 5),
    st.sampled_from(["seeds", "discs", "points"]),
    counts,
    st.lists(ply_analyses, max_size=3).map(tuple),
    st.tuples(side_analyses, side_analyses),
)

MESSAGES: dict[type[Any], st.SearchStrategy[Any]] = {
    Hello: st.builds(
        Hello,
        ids,
        st.integers(-(2**63), 2**64 - 1),
        player_names,
        st.sampled_from(["human", "bot"]),
        maybe(keys),
    ),
    Claim: st.builds(Claim, ids, player_names, st.booleans()),
    Rotate: st.builds(Rotate, ids),
    ListGames: st.builds(
        ListGames,
        ids,
        maybe(st.sampled_from(["open", "live", "finished"])),
        maybe(names),
        maybe(st.integers(1, 100)),
        maybe(texts),
        maybe(st.booleans()),
    ),
    Cancel: st.builds(Cancel, ids, texts),
    Create: st.builds(
        Create,
        ids,
        game_names,
        options,
        st.tuples(seat_specs, seat_specs),
        maybe(clock_specs),
        rated=st.booleans(),
    ),
    Ratings: st.builds(
        Ratings, ids, game_names, maybe(st.sampled_from(SPEED_NAMES)), maybe(st.integers(1, 100))
    ),
    Player: st.builds(Player, ids, names, maybe(st.integers(1, 100))),
    TournamentNew: st.builds(
        TournamentNew,
        ids,
        names,
        game_names,
        options,
        formats,
        st.booleans(),
        st.integers(0, 99),
        st.integers(0, 1440),
        st.sampled_from(["standard", "kgp"]),
        st.booleans(),
        st.integers(1, 64),
        st.integers(0, 60_000),
    ),
    TournamentJoin: st.builds(TournamentJoin, ids, texts, maybe(seat_specs)),
    TournamentStart: st.builds(TournamentStart, ids, texts),
    TournamentShow: st.builds(TournamentShow, ids, texts, st.booleans()),
    TournamentList: st.builds(TournamentList, ids, maybe(st.integers(1, 100))),
    TournamentEvent: st.builds(
        TournamentEvent, tournament_views, st.lists(pairing_lines, max_size=2).map(tuple)
    ),
    Join: st.builds(Join, ids, texts, maybe(seats)),
    Resume: st.builds(Resume, ids, texts, texts, counts),
    Watch: st.builds(Watch, ids, texts, maybe(counts)),
    Move: st.builds(Move, ids, texts, texts, counts, moves, maybe(client_bot_infos)),
    Resign: st.builds(Resign, ids, texts, texts),
    Abort: st.builds(Abort, ids, texts, texts),
    Draw: st.builds(Draw, ids, texts, texts, counts),
    DrawAnswer: st.builds(DrawAnswer, ids, texts, texts, counts, st.booleans()),
    Takeback: st.builds(Takeback, ids, texts, texts, counts),
    TakebackAnswer: st.builds(TakebackAnswer, ids, texts, texts, counts, st.booleans()),
    Rematch: st.builds(Rematch, ids, texts, texts),
    RematchAnswer: st.builds(RematchAnswer, ids, texts, texts, st.booleans()),
    Ping: st.builds(Ping, ids, int64),
    Analyse: st.builds(Analyse, ids, texts),
    AnalysisEvent: st.builds(
        AnalysisEvent,
        texts,
        st.sampled_from(["done", "failed"]),
        maybe(analyses),
        maybe(texts),
    ),
    Ok: st.builds(
        Ok,
        ids,
        maybe(counts),
        maybe(texts),
        maybe(st.lists(summaries, max_size=2).map(tuple)),
        maybe(texts),
        maybe(seats),
        maybe(texts),
        maybe(int64),
        maybe(int64),
        maybe(texts),
        maybe(st.lists(names, max_size=2).map(tuple)),
        maybe(keys),
        st.booleans(),
        maybe(names),
        leaderboard=maybe(st.lists(pool_ratings, max_size=3).map(tuple)),
        player=maybe(player_cards),
        tournament=maybe(tournament_views),
        tournament_id=maybe(texts),
        tournaments=maybe(st.lists(tournament_summaries, max_size=2).map(tuple)),
    ),
    Error: st.builds(Error, maybe(ids), texts, st.text(printable, max_size=50), maybe(counts)),
    Snapshot: st.builds(
        Snapshot,
        texts,
        counts,
        texts,
        options,
        statuses,
        texts,
        seats,
        counts,
        move_lists,
        two_seats,
        maybe(move_lists),
        maybe(clocks),
        maybe(results),
        maybe(clock_specs),
        maybe(counts),
        maybe(seats),
        analysis=maybe(analyses),
    ),
    Moved: st.builds(
        Moved,
        texts,
        st.integers(1, 2**40),
        counts,
        seats,
        moves,
        texts,
        seats,
        maybe(move_lists),
        maybe(clocks),
        maybe(bot_infos),
    ),
    Over: st.builds(
        Over,
        texts,
        st.integers(1, 2**40),
        results,
        maybe(st.tuples(rating_changes, rating_changes)),
    ),
    SeatEvent: st.builds(
        SeatEvent,
        texts,
        st.integers(1, 2**40),
        seats,
        maybe(names),
        st.booleans(),
        maybe(counts),
        maybe(statuses),
        maybe(move_lists),
        maybe(clocks),
        maybe(names),
        st.booleans(),
    ),
    TakebackRequest: st.builds(
        TakebackRequest,
        texts,
        st.integers(1, 2**40),
        seats,
        st.sampled_from(["asked", "declined", "accepted"]),
        counts,
        maybe(texts),
        maybe(seats),
        maybe(move_lists),
        maybe(clocks),
    ),
    DrawOffer: st.builds(
        DrawOffer, texts, st.integers(1, 2**40), seats, st.sampled_from(["offered", "declined"])
    ),
    Lobby: st.builds(Lobby, summaries),
    RematchOffer: st.builds(
        RematchOffer,
        texts,
        seats,
        st.sampled_from(["offered", "declined", "withdrawn", "accepted"]),
        maybe(texts),
        maybe(seats),
        maybe(texts),
    ),
}
any_message = st.one_of(*MESSAGES.values())


def test_every_message_type_has_a_strategy() -> None:
    assert set(MESSAGES) == set(COMMAND_TYPES) | set(SERVER_MESSAGE_TYPES)


@given(any_message)
def test_every_message_round_trips(message: Message) -> None:
    assert decode(encode(message)) == message


@given(st.one_of(*(MESSAGES[cls] for cls in COMMAND_TYPES)))
def test_commands_are_what_a_server_decodes(message: Message) -> None:
    if isinstance(message, Hello) and message.proto != PROTOCOL_VERSION:
        with pytest.raises(UnsupportedVersion):  # the version first, whatever else it holds
            decode_command(encode(message))
    else:
        assert decode_command(encode(message)) == message
    with pytest.raises(ProtocolError, match="unknown message type"):
        decode_server_message(encode(message))


@given(st.one_of(*(MESSAGES[cls] for cls in SERVER_MESSAGE_TYPES)))
def test_server_messages_are_what_a_client_decodes(message: Message) -> None:
    assert decode_server_message(encode(message)) == message
    with pytest.raises(ProtocolError, match="unknown message type"):
        decode_command(encode(message))


# -- what goes on the wire ---------------------------------------------------------------------


def test_unset_optional_fields_are_left_out_but_required_nils_are_sent() -> None:
    assert to_wire(Join(id=1, game_id="g")) == {"type": "join", "id": 1, "game_id": "g"}
    assert to_wire(Error(id=None, code="bad_message", message="m")) == {
        "type": "error",
        "id": None,
        "code": "bad_message",
        "message": "m",
    }
    over = Over(game_id="g", v=3, result=Result(winner=None, reason="resign", score=None))
    assert to_wire(over)["result"] == {"winner": None, "reason": "resign", "score": None}
    assert to_wire(Create(1, "kalah", {}, (SeatSpec.open(), SeatSpec.bot(3))))["seats"] == [
        {"kind": "open"},
        {"kind": "bot", "depth": 3},
    ]


def test_a_field_is_left_out_only_at_its_own_default() -> None:
    @dataclasses.dataclass(frozen=True)
    class Fields:
        maybe: bool | None = None
        flag: bool = False
        count: int = 0

    assert to_wire(Fields()) == {"count": 0}
    assert to_wire(Fields(maybe=False, flag=True)) == {"maybe": False, "flag": True, "count": 0}


def test_values_become_plain_data_whether_or_not_their_types_can_be_read() -> None:
    @dataclasses.dataclass(frozen=True)
    class Inner:
        pair: tuple[int, int]

    @dataclasses.dataclass(frozen=True)
    class Outer:
        inner: Inner  # a local class: its annotation cannot be resolved, the value is looked at
        inners: tuple[Inner, ...]
        texts: tuple[str, ...] | None = None

    value = Outer(Inner((1, 2)), (Inner((3, 4)),), ("a", "b"))
    assert to_wire(value) == {
        "inner": {"pair": [1, 2]},
        "inners": [{"pair": [3, 4]}],
        "texts": ["a", "b"],
    }
    result = to_wire(Result(winner=0, reason="normal", score=(3, 1)))
    assert result == {"winner": 0, "reason": "normal", "score": [3, 1]}


def test_frames_are_msgpack_maps_with_snake_case_string_keys() -> None:
    raw = msgpack.unpackb(encode(Ping(id=1, t=5)))
    assert raw == {"type": "ping", "id": 1, "t": 5}


def test_an_explicit_nil_for_an_optional_field_means_unset() -> None:
    frame = msgpack.packb({"type": "join", "id": 1, "game_id": "g", "seat": None})
    assert decode(frame) == Join(id=1, game_id="g", seat=None)
    clock = msgpack.packb({"initial_ms": 5, "increment_ms": None})
    create = {"type": "create", "id": 1, "game": "kalah", "options": {}}
    create["seats"] = [{"kind": "open"}, {"kind": "open"}]
    create["clock"] = msgpack.unpackb(clock)
    decoded = decode(msgpack.packb(create))
    assert isinstance(decoded, Create) and decoded.clock == ClockSpec(5, 0)


def test_unknown_fields_are_ignored() -> None:
    frame = msgpack.packb({"type": "ping", "id": 1, "t": 2, "future": {"x": [1, 2]}})
    assert decode(frame) == Ping(id=1, t=2)


# -- rejections --------------------------------------------------------------------------------


def reject(frame: bytes | str) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode_command(frame)
    assert caught.value.code == ErrorCode.BAD_MESSAGE
    return caught.value


def pack(value: Any) -> bytes:
    return cast(bytes, msgpack.packb(value, use_bin_type=True))


def command(**fields: Any) -> bytes:
    return pack(
        {"type": "move", "id": 9, "game_id": "g", "token": "t", "ply": 0, "move": "1"} | fields
    )


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (b"", "malformed"),
        (b"\xc1", "malformed"),
        (b"\x81\xa4type", "malformed"),  # truncated
        (pack({"type": "ping", "id": 1, "t": 1}) + b"\x00", "malformed"),  # trailing bytes
        (b"\x81\xa4type\xa4\xff\xfe\xfd\xfc", "malformed"),  # invalid UTF-8
        (pack({"type": "ping", "x": msgpack.ExtType(5, b"a")}), "malformed"),
        (command(extra=msgpack.Timestamp(1)), "malformed"),  # ext type -1, read by msgpack itself
        ("text frame", "text_frame"),
        (pack([1, 2]), "not_a_map"),
        (pack("ping"), "not_a_map"),
        (pack(None), "not_a_map"),
        (pack({"id": 1}), "no_type"),
        (pack({"type": 7, "id": 1}), "no_type"),
        (pack({b"type": "ping", "id": 1}), "no_type"),
    ],
)
def test_frames_that_are_not_messages_have_no_id(frame: bytes | str, reason: str) -> None:
    error = reject(frame)
    assert (error.reason, error.id) == (reason, None)


def test_an_unknown_type_is_rejected_with_the_commands_id() -> None:
    error = reject(pack({"type": "castle", "id": 12}))
    assert (error.reason, error.id) == ("unknown_type", 12)
    assert "castle" in error.message


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (pack({"type": "move", "id": 9}), "missing field game_id, move, ply, token"),
        (command(ply="0"), "ply must be an integer"),
        (command(ply=True), "ply must be an integer"),
        (command(ply=1.0), "ply must be an integer"),
        (command(ply=-1), "ply must be between 0"),
        (command(move=""), "move must have 1 to 32 characters"),
        (command(move="x" * 33), "move must have 1 to 32 characters"),
        (command(move=b"1"), "move must be a string"),
        (command(game_id=None), "game_id must be a string"),
        (command(token=["t"]), "token must be a string"),
        (command(extra=b"bytes"), "type the protocol does not allow"),
        (command(extra=float("nan")), "must be a finite number"),
        (pack({"type": "join", "id": 9, "game_id": "g", "seat": 2}), "seat must be one of 0, 1"),
        (pack({"type": "join", "id": 9, "game_id": "g", "seat": False}), "seat must be one of"),
        (pack({"type": "hello", "id": 9, "proto": 1, "name": "a", "role": "god"}), "role"),
        (pack({"type": "hello", "id": 9, "proto": 1, "name": "", "role": "bot"}), "name"),
        (pack({"type": "ping", "id": 9, "t": 2**64 - 1}), "t must be between"),
        (pack({"type": "resume", "id": 9, "game_id": "g", "token": "t"}), "missing field since_v"),
        (pack({"type": "analyse", "id": 9}), "missing field game_id"),
        (pack({"type": "analyse", "id": 9, "game_id": 5}), "game_id must be a string"),
    ],
)
def test_fields_are_checked_for_presence_type_and_range(frame: bytes, words: str) -> None:
    error = reject(frame)
    assert (error.reason, error.id) == ("bad_field", 9)
    assert words in error.message


def test_a_bad_id_leaves_the_id_out_of_the_error() -> None:
    assert reject(pack({"type": "ping", "id": -1, "t": 0})).id is None
    assert reject(pack({"type": "ping", "id": True, "t": 0})).id is None
    assert reject(pack({"type": "ping", "id": "1", "t": 0})).id is None


def create(**fields: Any) -> bytes:
    base = {"type": "create", "id": 3, "game": "kalah", "options": {}}
    base["seats"] = [{"kind": "open"}, {"kind": "open"}]
    return pack(base | fields)


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (create(game=""), "game must have 1 to 32 characters"),
        (create(game="k" * 33), "game must have 1 to 32 characters"),
        (create(game="Kalah"), "game may only have the characters a-z0-9_"),
        (create(game="kalah 6"), "game may only have the characters a-z0-9_"),
        (create(game=7), "game must be a string"),
        (create(options=[]), "options must be a map"),
        (create(options={"a": [[[[[[[[[1]]]]]]]]]}), "nested too deeply"),
        (create(options={str(i): i for i in range(33)}), "at most 32 entries"),
        (create(options={"": 1}), "keys must be strings"),
        (create(seats=[{"kind": "open"}]), "seats must have exactly 2 items"),
        (create(seats=[{"kind": "open"}, {"kind": "human"}]), "kind must be one of"),
        (create(seats=[{"kind": "open"}, {"kind": "bot"}]), "depth is required"),
        (create(seats=[{"kind": "open", "depth": 2}, {"kind": "open"}]), "only for bot seats"),
        (
            create(seats=[{"kind": "open", "wants_bot": False, "depth": 2}, {"kind": "open"}]),
            "only",
        ),
        (
            create(seats=[{"kind": "open", "wants_bot": True, "time_ms": 5}, {"kind": "open"}]),
            "only",
        ),
        (
            create(seats=[{"kind": "open", "wants_bot": True, "depth": 0}, {"kind": "open"}]),
            "depth",
        ),
        (create(seats=[{"kind": "open", "wants_bot": 1}, {"kind": "open"}]), "true or false"),
        (create(seats=[{"kind": "bot", "depth": 2, "wants_bot": True}, {"kind": "open"}]), "open"),
        (create(seats=[{"kind": "bot", "depth": 0}, {"kind": "open"}]), "depth must be between"),
        (create(seats=[{"kind": "open"}, "open"]), "seats[1] must be a map"),
        (create(clock={"initial_ms": 0}), "initial_ms must be between 1"),
        (create(clock={"increment_ms": 5}), "missing field initial_ms in clock"),
    ],
)
def test_create_is_checked_down_to_the_nested_values(frame: bytes, words: str) -> None:
    error = reject(frame)
    assert error.id == 3 and words in error.message, error.message


@pytest.mark.parametrize("name", [*GAMES, "chess", "kalah_2"])
def test_the_codec_takes_any_well_formed_game_name_and_leaves_the_registry_to_the_server(
    name: str,
) -> None:
    decoded = decode_command(create(game=name))
    assert isinstance(decoded, Create) and decoded.game == name


def test_integer_keys_are_refused_by_the_strict_decoder() -> None:
    assert reject(pack({"type": "ping", "id": 1, "t": 0, 5: 1})).reason == "malformed"


def test_a_deeply_nested_frame_is_refused_without_recursion_errors() -> None:
    assert reject(b"\x91" * 100_000 + b"\x01").reason == "malformed"
    nested = pack({"type": "ping", "id": 1, "t": 0, "x": [[[[[[[[[[1]]]]]]]]]]})
    assert reject(nested).id == 1


def test_messages_are_plain_values() -> None:
    message = Moved("g", 1, 0, 0, "1", "p", 1, legal=("1", "2"))
    assert dataclasses.replace(message, legal=None) == Moved("g", 1, 0, 0, "1", "p", 1)


# -- extensions: seats that want a bot, bot settings in seat info, creation time, move info --------


def test_a_seat_that_wants_a_bot_adds_a_flag_and_plain_open_seats_stay_as_they_were() -> None:
    seats = (SeatSpec.open(), SeatSpec.external_bot(), SeatSpec.external_bot(5))
    assert [to_wire(seat) for seat in seats] == [
        {"kind": "open"},
        {"kind": "open", "wants_bot": True},
        {"kind": "open", "depth": 5, "wants_bot": True},
    ]
    frame = create(
        seats=[{"kind": "open", "wants_bot": False}, {"kind": "open", "wants_bot": None}]
    )
    decoded = decode_command(frame)
    assert isinstance(decoded, Create) and decoded.seats == (SeatSpec.open(), SeatSpec.open())


def test_seat_info_names_bot_settings_only_when_there_are_some() -> None:
    assert to_wire(SeatInfo("open", None, False)) == {
        "kind": "open",
        "name": None,
        "connected": False,
    }
    bot = SeatInfo("bot", "b", True, depth=4, time_ms=500, eval="mobility", algorithm="negamax")
    assert to_wire(bot) == {
        "kind": "bot",
        "name": "b",
        "connected": True,
        "depth": 4,
        "time_ms": 500,
        "eval": "mobility",
        "algorithm": "negamax",
    }
    wanted = to_wire(SeatInfo("open", None, False, wants_bot=True, depth=3))
    assert (wanted["wants_bot"], wanted["depth"]) == (True, 3)
    assert decode_server_message(encode(Ok(id=1, games=()))) == Ok(id=1, games=())


def test_a_snapshot_and_a_summary_carry_the_creation_time_in_epoch_milliseconds() -> None:
    summary = GameSummary("g", "kalah", {}, "waiting", 0, (SeatInfo("open", None, False),) * 2)
    assert "created" not in to_wire(summary)
    dated = dataclasses.replace(summary, created=1_714_521_600_000)
    assert to_wire(dated)["created"] == 1_714_521_600_000
    bad = to_wire(Ok(id=4, games=(dated,)))
    bad["games"][0]["created"] = -1
    with pytest.raises(ProtocolError, match="created must be between 0"):
        decode_server_message(pack(bad))


def test_a_move_may_carry_the_bots_search_report() -> None:
    info = BotInfo(depth=6, score=-2, nodes=5210, time_ms=38, pv=("3", "1"), mate=None)
    sent = Move(id=5, game_id="g", token="t", ply=4, move="3", info=info)
    assert decode_command(encode(sent)) == sent
    assert "info" not in to_wire(dataclasses.replace(sent, info=None))


GOOD_INFO = {"depth": 6, "score": 2, "nodes": 100, "time_ms": 38, "pv": ["3", "1"]}


@pytest.mark.parametrize(
    ("info", "words"),
    [
        ("depth 6", "info must be a map"),
        ({k: v for k, v in GOOD_INFO.items() if k != "score"}, "missing field score in info"),
        (GOOD_INFO | {"depth": -1}, "info.depth must be between 0"),
        (GOOD_INFO | {"nodes": -1}, "info.nodes must be between 0"),
        (GOOD_INFO | {"time_ms": 1.5}, "info.time_ms must be an integer"),
        (GOOD_INFO | {"score": True}, "info.score must be an integer"),
        (GOOD_INFO | {"pv": ["1"] * 129}, "info.pv must have at most 128 items"),
        (GOOD_INFO | {"pv": ["1", ""]}, "info.pv[1] must have 1 to 32 characters"),
        (GOOD_INFO | {"pv": "3 1"}, "info.pv must be a list"),
        (GOOD_INFO | {"mate": "3"}, "info.mate must be an integer"),
    ],
)
def test_a_moves_search_report_is_checked_strictly(info: Any, words: str) -> None:
    error = reject(command(info=info))
    assert (error.reason, error.id) == ("bad_field", 9)
    assert words in error.message, error.message


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ({"type": "tournament_new", "id": 1, "name": "t", "game": "kalah", "options": {},
          "format": "knockout"}, "format"),
        ({"type": "tournament_new", "id": 1, "name": "t", "game": "kalah", "options": {},
          "concurrency": 0}, "concurrency"),
        ({"type": "tournament_join", "id": 1}, "tournament_id"),
        ({"type": "tournament_show", "id": 1, "tournament_id": "t1", "subscribe": 1}, "subscribe"),
    ],
)  # fmt: skip
def test_tournament_commands_are_validated_strictly(raw: dict[str, Any], why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        decode_command(msgpack.packb(raw))


def test_a_value_of_an_analysis_is_a_float_not_an_integer() -> None:
    """The analysis's values are floats on the wire, checked as strictly as the rest: an
    integer where a float belongs is refused, as a boolean where an integer belongs."""
    side = {"accuracy": 90.0, "average_loss": 1.5, "inaccuracies": 1, "mistakes": 0, "blunders": 0}
    analysis = {"format": 1, "units": "seeds", "time_ms": 300, "plies": [], "sides": [side, side]}
    good = {"type": "analysis", "game_id": "g", "state": "done", "analysis": analysis}
    assert isinstance(decode_server_message(pack(good)), AnalysisEvent)
    bad = {**analysis, "sides": [{**side, "accuracy": 90}, side]}
    with pytest.raises(ProtocolError, match="accuracy must be a finite float"):
        decode_server_message(pack({**good, "analysis": bad}))
