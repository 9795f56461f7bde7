"""Every message of wire protocol v1 as a typed value, defined once for server and clients.

Field names are the wire's field names. Sequences are tuples so that messages are plain,
comparable values; `options` maps stay dicts. A field whose default is None is optional on the
wire: `encode` leaves it out while it is None and `decode` fills in None when it is absent. A
flag whose default is False is likewise sent only when true, so that older peers see nothing new.

Each field's annotation is also its wire schema: the codec reads the types and their
`Annotated` constraints (`Range`, `Text`, `OneOf`, `Items`) once, at import, and checks every
frame against them, so that a field and its limits are written in one place only. A bare `int` is
any 64-bit integer; every `str` names its length bounds, and every text on the wire is printable
(no control characters, so no terminal escape sequences): what one client sends, others print.
Rules that span fields are a message's `why_invalid` method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

PROTOCOL_VERSION = 1
"""The version this package speaks; `hello` carries it as `proto`."""

# -- limits and constraints: what the codec checks, read from the annotations ------------------

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
"""The largest integer msgpack carries (its smallest is INT64_MIN)."""
MAX_NAME = 64
"""Longest player name (and other short names: codes, evaluations, reasons)."""
MAX_GAME_NAME = 32
"""Longest game name; which names exist is the server's registry's business, not the codec's."""
MAX_GAME_ID = 64
MAX_TOKEN = 128
MIN_KEY = 16
"""Shortest account key `hello` takes (the server makes keys of 43 characters)."""
MAX_MOVE = 32
"""Longest move text (Bao's longest canonical move is 5 characters)."""
MAX_TEXT = 4096
MAX_COMMENT = 500
"""A bot's comment on its move (`BotInfo.comment`)."""
"""Longest free text from the server (positions, error messages)."""
MAX_LIST = 100_000
"""Longest list from the server (histories, legal move lists, lobbies)."""
MAX_OPTIONS = 32
"""Most entries in an `options` map (and most nesting levels of plain data: see MAX_NESTING)."""
MAX_NESTING = 8
MAX_CLOCK_MS = 7 * 24 * 3600 * 1000
MAX_BOT_DEPTH = 64
MAX_BOT_TIME_MS = 3600 * 1000
MAX_PACE_MS = 60 * 1000
MAX_PAGE = 100
"""Most game summaries in one `games` reply; a page of the lobby, never all of it."""
DEFAULT_PAGE = 50
"""Summaries in a `games` reply that does not say how many (as old clients' plain `games`)."""
MAX_CURSOR = 128


@dataclass(frozen=True, slots=True)
class Range:
    """Bounds of an integer field, inclusive (a bare `int` is any 64-bit integer)."""

    lo: int = INT64_MIN
    hi: int = INT64_MAX


@dataclass(frozen=True, slots=True)
class Text:
    """Length bounds of a string field, in characters, and optionally the characters allowed
    (a regular expression character class such as `a-z0-9_`); any text must be printable.
    `trimmed`: no space at either end, so never blank (a name others see in the lobby), and
    readable: nothing that renders blank, no tower of marks, at most 64 columns
    (`names.name_problem`)."""

    max: int
    min: int = 1
    chars: str | None = None
    trimmed: bool = False


@dataclass(frozen=True, slots=True)
class OneOf:
    """An integer field that takes only these values (seat numbers), where the static type
    stays `int` so that code computing them need not prove it."""

    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Items:
    """Length of a `tuple[X, ...]` field on the wire: at most `max` items, or exactly `exact`
    (without it, at most MAX_LIST)."""

    max: int = MAX_LIST
    exact: int | None = None


Id = Annotated[int, Range(0)]
"""A command's id, chosen by the client."""
Count = Annotated[int, Range(0)]
"""Versions, plies, depths, nodes, milliseconds: never negative."""
Version = Annotated[int, Range(1)]
"""The version an event makes: 1, 2, 3, ... (a snapshot's `v` may still be 0)."""
Seat = Annotated[int, OneOf((0, 1))]
GameId = Annotated[str, Text(MAX_GAME_ID)]
GameName = Annotated[str, Text(MAX_GAME_NAME, chars="a-z0-9_")]
Token = Annotated[str, Text(MAX_TOKEN)]
Key = Annotated[str, Text(MAX_TOKEN, min=MIN_KEY)]
"""The secret key of a claimed name (an account): the server makes it (`claim`, `rotate`)."""
Name = Annotated[str, Text(MAX_NAME)]
PlayerName = Annotated[str, Text(MAX_NAME, trimmed=True)]
"""The name a player gives in `hello`: shown to everyone, so neither blank nor padded to look
like another's."""
MoveText = Annotated[str, Text(MAX_MOVE)]
Moves = tuple[MoveText, ...]
Position = Annotated[str, Text(MAX_TEXT)]
Cursor = Annotated[str, Text(MAX_CURSOR)]
Pace = Annotated[int, Range(0, MAX_PACE_MS)]
"""The least time between two moves of server-hosted bots (`create`'s `pace_ms`)."""

Role = Literal["human", "bot", "spectator"]
Status = Literal["waiting", "playing", "over"]
LobbyFilter = Literal["open", "live", "finished"]
"""`open`: waiting for a player; `live`: being played; `finished`: over."""
SeatKind = Literal["open", "bot"]

MATE_SCORE = 1_000_000
"""A forced result is scored ±(MATE_SCORE - plies) in `BotInfo.score` (with `mate` set to the
plies), so that scores still order: a faster win scores higher."""

MAX_PV = 128
"""Most moves of a principal variation a client may send with its `move`."""


def mate_score(plies: int) -> int:
    """The `BotInfo.score` of a forced result `plies` away (negative plies: a forced loss)."""
    return MATE_SCORE - plies if plies > 0 else -(MATE_SCORE + plies)


# -- values nested in messages -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A Fischer time control: every seat starts with `initial_ms`, gains `increment_ms` a move."""

    initial_ms: Annotated[int, Range(1, MAX_CLOCK_MS)]
    increment_ms: Annotated[int, Range(0, MAX_CLOCK_MS)] = 0


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits in a seat of a new game: an open seat (which may ask for an external bot), or a
    bot hosted by the server."""

    kind: SeatKind
    depth: Annotated[int, Range(1, MAX_BOT_DEPTH)] | None = None
    """Search depth in plies: required for bot seats; for an open seat that wants a bot, the
    depth wished for (optional)."""
    time_ms: Annotated[int, Range(1, MAX_BOT_TIME_MS)] | None = None
    """Thinking time per move (bot seats only)."""
    eval: Name | None = None
    """Name of the game's static evaluation (bot seats only; default: the game's first)."""
    algorithm: Name | None = None
    """`minimax`, `alphabeta` or `negamax` (bot seats only; default: the engine's)."""
    wants_bot: bool = False
    """Extension, open seats only: an external bot client is wanted here (`ubao bot --serve`
    joins only such seats), so that bots do not take the seats people wait for."""
    engine: Name | None = None
    """Extension, bot seats only: one of the server's engine bots, by name (the `engines` of
    `hello`'s `ok`), instead of ubao's own engine; it takes no `eval` nor `algorithm`."""

    @classmethod
    def open(cls) -> SeatSpec:
        return cls("open")

    @classmethod
    def external_bot(cls, depth: int | None = None) -> SeatSpec:
        """An open seat for an external bot client, optionally wishing for a search depth."""
        return cls("open", depth, wants_bot=True)

    @classmethod
    def bot(
        cls,
        depth: int,
        *,
        time_ms: int | None = None,
        eval: str | None = None,
        algorithm: str | None = None,
        engine: str | None = None,
    ) -> SeatSpec:
        return cls("bot", depth, time_ms, eval, algorithm, engine=engine)

    def why_invalid(self) -> str | None:
        """Which settings go with which kind of seat: a rule across fields, so not a type."""
        if self.kind == "bot":
            if self.depth is None:
                return "depth is required for a bot seat"
            if self.wants_bot:
                return "wants_bot is only for open seats"
            if self.engine is not None and (self.eval, self.algorithm) != (None, None):
                return "eval and algorithm are ubao's engine's; an engine bot takes neither"
        elif self not in (SeatSpec.open(), SeatSpec.external_bot(self.depth)):
            return (
                "time_ms, eval, algorithm and engine are only for bot seats, "
                "and depth only for them and open seats that want a bot"
            )
        return None


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A seat as others see it: its kind, the name of whoever sits there, and presence; and,
    as extensions, what its seat spec says of bots, so that nobody parses names for it."""

    kind: SeatKind
    name: Name | None
    """None while an open seat has not been joined."""
    connected: bool
    wants_bot: bool = False
    """Extension: an open seat that asks for an external bot client."""
    depth: Count | None = None
    """Extension: a server bot's search depth, or the depth an open seat wishes for its bot."""
    time_ms: Count | None = None
    """Extension: a server bot's thinking time per move, when set."""
    eval: Name | None = None
    """Extension: a server bot's evaluation, when set (else the game's first)."""
    algorithm: Name | None = None
    """Extension: a server bot's search algorithm, when set."""
    client: Name | None = None
    """Extension: what kind of client plays an open seat, from its `hello` role: `bot` for a
    bot client, whatever name it plays under (absent for people)."""
    engine: Name | None = None
    """Extension: the server's engine bot that plays a bot seat (absent: ubao's own engine)."""
    account: bool = False
    """Extension: whoever plays the seat proved the key of the name's account (`hello`'s
    `key`); absent (False) for a guest, whom clients show as one."""


TwoSeats = Annotated[tuple[SeatInfo, ...], Items(exact=2)]


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One line of the lobby (`games`)."""

    game_id: GameId
    game: Name
    options: dict[str, Any]
    status: Status
    ply: Count
    seats: TwoSeats
    clock: ClockSpec | None = None
    """Extension: the game's time control, if it has one."""
    created: Count | None = None
    """Extension: when the game was created, in milliseconds since the epoch (UTC)."""
    result: Result | None = None
    """Extension: how a finished game ended."""
    pace_ms: Pace | None = None
    """Extension: the game's pace (`create`'s `pace_ms`), if it has one."""
    spectators: Count | None = None
    """Extension: how many connections watch the game without a seat in it, as of the
    summary (a lobby shows it)."""
    rated: bool = False
    """Extension: the game is rated (docs/ratings.md)."""


@dataclass(frozen=True, slots=True)
class Clocks:
    """Both clocks at the moment the event was made."""

    remaining_ms: tuple[Count, Count]
    """Time left for seat 0 and seat 1."""
    running: Seat | None
    """The seat whose clock runs, or None when no clock runs (not started or over)."""
    increment_ms: Count = 0
    first_move_ms: Count | None = None
    """Extension: while the untimed first move of the player to move is awaited, the time left
    to make it before the game is aborted."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended."""

    winner: Seat | None
    """0, 1, or None for a draw or an aborted game."""
    reason: Name
    """`normal`, `no_moves`, ... from the rules, or `resign`, `timeout`, `abandoned`, `aborted`,
    `ply_limit`, `repetition`, `engine_failure` from the server."""
    score: tuple[int, int] | None
    """Each seat's points when the rules ended the game; None when the server ended it."""


@dataclass(frozen=True, slots=True)
class BotInfo:
    """What a bot reported about the search that chose its move: a server-hosted bot's engine,
    or a bot client in its `move`."""

    depth: Count
    score: int
    """From the mover's point of view; a forced result is ±(1_000_000 - plies), see `mate`."""
    nodes: Count
    time_ms: Count
    pv: Moves
    mate: int | None = None
    """Extension: plies to a forced win (negative: to a forced loss), when the engine found one."""
    comment: Annotated[str, Text(MAX_COMMENT, min=0)] | None = None
    """Extension: the bot's own words on its move (a KGP agent's `info:comment`, docs/kgp.md);
    a report of depth 0 reports no search (its score, nodes and pv mean nothing)."""


Pool = Annotated[str, Text(MAX_NAME, chars="a-z0-9_/")]
"""A rating pool: the game and the speed, `kalah/blitz` (docs/ratings.md)."""
Rating = Annotated[int, Range(-100_000, 100_000)]
"""A Glicko-2 rating, rounded to an integer as it is shown."""
Outcome = Literal["win", "draw", "loss"]
Speed = Literal["bullet", "blitz", "rapid", "classical", "untimed"]
"""A pool's speed, from the game's clock: by its estimated duration, or `untimed`."""
SPEED_NAMES: tuple[Speed, ...] = ("bullet", "blitz", "rapid", "classical", "untimed")


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What a rated game did to one seat's rating (`over`'s `ratings`)."""

    player: Name
    """The account, as the store keys its ratings (its canonical name)."""
    pool: Pool
    before: Rating
    after: Rating
    rd: Count
    """The rating deviation after the game."""
    provisional: bool = False
    """The deviation after the game is still high: shown with a `?`."""


@dataclass(frozen=True, slots=True)
class PoolRating:
    """An account's rating in one pool, with its record there (`ratings`, `player`)."""

    player: Name
    pool: Pool
    rating: Rating
    rd: Count
    games: Count
    wins: Count
    draws: Count
    losses: Count
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class RatedResult:
    """One rated game of a player's, from the player's side (`player`'s `recent`)."""

    game_id: GameId
    pool: Pool
    finished: Count
    """When it ended, in milliseconds since the epoch (UTC)."""
    opponent: Name
    outcome: Outcome
    before: Rating
    after: Rating


@dataclass(frozen=True, slots=True)
class PlayerCard:
    """An account's ratings in every pool it played in and its latest rated games."""

    name: Name
    ratings: tuple[PoolRating, ...]
    recent: tuple[RatedResult, ...]


TournamentId = Annotated[str, Text(MAX_GAME_ID)]
Decimal = Annotated[str, Text(16, chars="0-9.")]
"""A number of points (`7.5`), written out so that halves and quarters stay exact."""
Cell = Annotated[str, Text(MAX_NAME, min=0, chars="10½*")]
"""A crosstable cell: one character a game (`1`, `½`, `0`, `*` while played); empty: none."""
TournamentFormat = Literal["round_robin", "swiss", "arena"]
TournamentStatus = Literal["open", "running", "finished", "cancelled"]


@dataclass(frozen=True, slots=True)
class StandingLine:
    """One entrant's line of a tournament's standings, best first (docs/tournaments-server.md)."""

    rank: Annotated[int, Range(1)]
    entrant: Count
    """Its index in `entrants` (and in the crosstable)."""
    points: Decimal
    games: Count
    wins: Count
    draws: Count
    losses: Count
    byes: Count
    sonneborn_berger: Decimal
    buchholz: Decimal
    performance: Annotated[int, Range(-100_000, 100_000)]


@dataclass(frozen=True, slots=True)
class PairingLine:
    """One game of a tournament: `white` has seat 0; `black` None: a bye."""

    round: Annotated[int, Range(1)]
    white: Count
    black: Count | None = None
    game_id: GameId | None = None
    result: Annotated[str, Text(8)] | None = None
    """`1-0`, `½-½`, `0-1` once over; `*` while played; absent before it starts."""


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    """A tournament's line in `tournament_list`."""

    tournament_id: TournamentId
    name: Name
    game: GameName
    format: TournamentFormat
    status: TournamentStatus
    entrants: Count
    round: Count
    rounds: Count
    leader: Name | None = None
    """The first of the standings, once a game is over."""


@dataclass(frozen=True, slots=True)
class TournamentView:
    """A tournament as its subscribers see it: settings, entrants, pairings, standings and the
    crosstable (row `i`, column `j`: `i`'s results against `j`, one character a game)."""

    tournament_id: TournamentId
    name: Name
    game: GameName
    format: TournamentFormat
    status: TournamentStatus
    scoring: Literal["standard", "kgp"]
    rated: bool
    round: Count
    rounds: Count
    entrants: Annotated[tuple[Name, ...], Items(MAX_PAGE * 10)]
    kinds: Annotated[tuple[Name, ...], Items(MAX_PAGE * 10)]
    """Per entrant: `account`, or the server bot's settings (`bot depth 3`)."""
    standings: Annotated[tuple[StandingLine, ...], Items(MAX_PAGE * 10)]
    pairings: Annotated[tuple[PairingLine, ...], Items(MAX_LIST)]
    crosstable: Annotated[tuple[tuple[Cell, ...], ...], Items(MAX_PAGE * 10)]
    ends_ms: Count | None = None
    """An arena: when it stops pairing (ms since the epoch)."""


AnalysisMark = Literal["", "inaccuracy", "mistake", "blunder"]
"""A move's class in a game's analysis: "" for a good move (docs/protocol.md, `analyse`)."""
ANALYSIS_FORMAT = 1
"""The version of the analysis a server sends (`GameAnalysis.format`): a client shows one of a
format it knows and says so of a newer one."""


@dataclass(frozen=True, slots=True)
class PlyAnalysis:
    """One move of a game as the server's engine judged it. Values are seat 0's view in the
    game's `units`; `loss` is what the move gave up, from the mover's view."""

    ply: Count
    seat: Seat
    move: MoveText
    best: MoveText
    line: Annotated[Moves, Items(MAX_PV)]
    """The engine's line from the position before the move, beginning with `best`."""
    before: float
    after: float
    loss: float
    mark: AnalysisMark
    depth: Count
    nodes: Count
    time_ms: Count
    exact: bool = False
    """`before` and `after` are proved values, not estimates."""


@dataclass(frozen=True, slots=True)
class SideAnalysis:
    """One seat's figures over the whole game."""

    accuracy: float
    """0 to 100 (docs/review.md)."""
    average_loss: float
    inaccuracies: Count
    mistakes: Count
    blunders: Count


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """A finished game's analysis, made once by the server and stored with the game."""

    format: Annotated[int, Range(1)]
    units: Name
    """What the values count: `seeds`, `discs` or `points`."""
    time_ms: Count
    """The budget per move it was made with."""
    plies: tuple[PlyAnalysis, ...]
    sides: tuple[SideAnalysis, SideAnalysis]


# -- client -> server commands -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    type: ClassVar[str] = "hello"
    id: Id
    proto: Annotated[int, Range(INT64_MIN, UINT64_MAX)]
    """Any integer: one the server does not speak is `unsupported_version`, not malformed."""
    name: PlayerName
    role: Role
    key: Key | None = None
    """Extension: the key of `name`'s account. A claimed name (or one a person could take for
    it) is refused without its key (`name_claimed`) or with a wrong one (`bad_key`); a key
    for a name nobody claimed is ignored (a guest: `ok` says `account` only when proven)."""


@dataclass(frozen=True, slots=True)
class Claim:
    """Extension: claim `name` as an account; the `ok` carries its new `key`, made by the
    server and never stored in the clear: whoever holds it plays under the name from now on."""

    type: ClassVar[str] = "claim"
    id: Id
    name: PlayerName
    bot: bool = False
    """An account for a bot (as lichess's BOT accounts): its seats show as a bot's."""


@dataclass(frozen=True, slots=True)
class Rotate:
    """Extension: replace the key of the account this connection proved in `hello`; the `ok`
    carries the new `key`, and the old one opens nothing from then on."""

    type: ClassVar[str] = "rotate"
    id: Id


@dataclass(frozen=True, slots=True)
class ListGames:
    """A page of the lobby; every field is an extension, and a plain `games` gets the first
    page with open games first."""

    type: ClassVar[str] = "games"
    id: Id
    filter: LobbyFilter | None = None
    """Only games in this state; without it, open games first, then live, then finished."""
    player: Name | None = None
    """Only games with a seat of this name."""
    limit: Annotated[int, Range(1, MAX_PAGE)] | None = None
    """At most this many summaries (DEFAULT_PAGE without it)."""
    cursor: Cursor | None = None
    """The page after the one whose reply carried this `cursor`."""
    subscribe: bool | None = None
    """True: push `lobby` events for every later change; False: stop; absent: as it was."""


@dataclass(frozen=True, slots=True)
class Create:
    type: ClassVar[str] = "create"
    id: Id
    game: GameName
    """Any well-formed name: the server says whether it has such a game (`bad_options`)."""
    options: dict[str, Any]
    seats: tuple[SeatSpec, SeatSpec]
    clock: ClockSpec | None = None
    pace_ms: Pace | None = None
    """The least time between two moves of server-hosted bots, so that people can follow."""
    rated: bool = False
    """Extension: a rated game, between two accounts only (docs/ratings.md)."""


@dataclass(frozen=True, slots=True)
class Cancel:
    """Extension: the creator of a game nobody has started withdraws it (`cancelled`)."""

    type: ClassVar[str] = "cancel"
    id: Id
    game_id: GameId


@dataclass(frozen=True, slots=True)
class Join:
    type: ClassVar[str] = "join"
    id: Id
    game_id: GameId
    seat: Seat | None = None
    """0, 1, or None for any open seat."""


@dataclass(frozen=True, slots=True)
class Resume:
    type: ClassVar[str] = "resume"
    id: Id
    game_id: GameId
    token: Token
    since_v: Count
    """The last version this client saw (0 if none: it then gets a snapshot)."""


@dataclass(frozen=True, slots=True)
class Watch:
    type: ClassVar[str] = "watch"
    id: Id
    game_id: GameId
    since_v: Count | None = None
    """With a version this client saw, it gets the events after it instead of a snapshot."""


@dataclass(frozen=True, slots=True)
class Move:
    type: ClassVar[str] = "move"
    id: Id
    game_id: GameId
    token: Token
    ply: Count
    """The ply this move is for (0-based): a resend for a ply already played changes nothing."""
    move: MoveText
    info: BotInfo | None = None
    """Extension: a bot client's report of the search that chose the move; the server passes
    it on in the `moved` event."""

    def why_invalid(self) -> str | None:
        """The server passes a client's search report on to everyone, so its pv is held
        shorter than the lists a server may send."""
        if self.info is not None and len(self.info.pv) > MAX_PV:
            return f"info.pv must have at most {MAX_PV} items"
        return None


@dataclass(frozen=True, slots=True)
class Resign:
    type: ClassVar[str] = "resign"
    id: Id
    game_id: GameId
    token: Token


@dataclass(frozen=True, slots=True)
class Abort:
    """Extension: call the game off before this seat has moved, as lichess's abort: it ends
    `aborted`, with no winner and no rating change. Refused (`already_moved`) once the seat
    has made a move; before the game starts, `resign` and `cancel` do it."""

    type: ClassVar[str] = "abort"
    id: Id
    game_id: GameId
    token: Token


@dataclass(frozen=True, slots=True)
class Draw:
    """Extension: offer a draw (or accept the opponent's pending offer), as on lichess."""

    type: ClassVar[str] = "draw"
    id: Id
    game_id: GameId
    token: Token
    ply: Count
    """The game's ply as the offerer sees it: an offer about a position gone by is refused."""


@dataclass(frozen=True, slots=True)
class DrawAnswer:
    """Extension: accept or decline the opponent's pending draw offer."""

    type: ClassVar[str] = "draw_answer"
    id: Id
    game_id: GameId
    token: Token
    ply: Count
    accept: bool


@dataclass(frozen=True, slots=True)
class Takeback:
    """Extension: ask to take back this seat's last move (and whatever the opponent played
    after it), so that it is this seat's turn again at the position before that move."""

    type: ClassVar[str] = "takeback"
    id: Id
    game_id: GameId
    token: Token
    ply: Count
    """The game's ply as the asker sees it: a request about a position gone by is refused."""


@dataclass(frozen=True, slots=True)
class TakebackAnswer:
    """Extension: accept or decline the opponent's pending takeback request."""

    type: ClassVar[str] = "takeback_answer"
    id: Id
    game_id: GameId
    token: Token
    ply: Count
    """The game's ply as the answerer sees it, as in `takeback`."""
    accept: bool


@dataclass(frozen=True, slots=True)
class Rematch:
    """Extension: offer the opponent of a finished game another one, seats swapped; if the
    opponent offered already, this accepts."""

    type: ClassVar[str] = "rematch"
    id: Id
    game_id: GameId
    token: Token


@dataclass(frozen=True, slots=True)
class RematchAnswer:
    """Extension: accept or decline the opponent's rematch offer."""

    type: ClassVar[str] = "rematch_answer"
    id: Id
    game_id: GameId
    token: Token
    accept: bool


@dataclass(frozen=True, slots=True)
class Ratings:
    """Extension: a game's leaderboard, best first: one pool (`speed`), or the game's every pool
    (docs/ratings.md)."""

    type: ClassVar[str] = "ratings"
    id: Id
    game: GameName
    speed: Speed | None = None
    limit: Annotated[int, Range(1, MAX_PAGE)] | None = None


@dataclass(frozen=True, slots=True)
class Player:
    """Extension: an account's ratings, record and latest rated games."""

    type: ClassVar[str] = "player"
    id: Id
    name: Name
    limit: Annotated[int, Range(1, MAX_PAGE)] | None = None
    """How many of the latest rated games (default 10)."""


@dataclass(frozen=True, slots=True)
class TournamentNew:
    """Extension: make a tournament (docs/tournaments-server.md); `ok` has its id."""

    type: ClassVar[str] = "tournament_new"
    id: Id
    name: Name
    game: GameName
    options: dict[str, Any]
    format: TournamentFormat = "round_robin"
    double: bool = False
    rounds: Annotated[int, Range(0, 99)] = 0
    minutes: Annotated[int, Range(0, 24 * 60)] = 0
    scoring: Literal["standard", "kgp"] = "standard"
    rated: bool = False
    concurrency: Annotated[int, Range(1, 64)] = 4
    pace_ms: Pace = 0


@dataclass(frozen=True, slots=True)
class TournamentJoin:
    """Extension: enter an open tournament: the connection's account, or (`bot`) a server bot
    at those settings (its `kind` is `bot`)."""

    type: ClassVar[str] = "tournament_join"
    id: Id
    tournament_id: TournamentId
    bot: SeatSpec | None = None


@dataclass(frozen=True, slots=True)
class TournamentStart:
    """Extension: its maker starts a tournament: no more entries; the first round is paired."""

    type: ClassVar[str] = "tournament_start"
    id: Id
    tournament_id: TournamentId


@dataclass(frozen=True, slots=True)
class TournamentList:
    """Extension: the tournaments the server holds, the latest made first (`ok`'s
    `tournaments`)."""

    type: ClassVar[str] = "tournament_list"
    id: Id
    limit: Annotated[int, Range(1, MAX_PAGE)] | None = None
    """How many (default 20)."""


@dataclass(frozen=True, slots=True)
class TournamentShow:
    """Extension: a tournament as it stands (`ok`'s `tournament`); `subscribe`: then a
    `tournament` event at each change (an entrant, a round paired, a game over, the end)."""

    type: ClassVar[str] = "tournament_show"
    id: Id
    tournament_id: TournamentId
    subscribe: bool = False


@dataclass(frozen=True, slots=True)
class Analyse:
    """Extension: the analysis of a finished game, anyone's: `ok` carries it if the server has
    made it, else the game is queued (`ok`'s `queued`) and an `analysis` event follows."""

    type: ClassVar[str] = "analyse"
    id: Id
    game_id: GameId


@dataclass(frozen=True, slots=True)
class Ping:
    type: ClassVar[str] = "ping"
    id: Id
    t: int
    """The client's clock in milliseconds, echoed back."""


# -- server -> client replies ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ok:
    """The success reply to the command with the same `id`; which fields it carries depends on
    the command (`hello`: proto, session; `games`: games and, if there are more, cursor;
    `create`: game_id; `join`: game_id, seat, token; `ping`: t, server_t)."""

    type: ClassVar[str] = "ok"
    id: Id
    proto: Count | None = None
    session: Token | None = None
    games: tuple[GameSummary, ...] | None = None
    game_id: GameId | None = None
    seat: Seat | None = None
    token: Token | None = None
    t: int | None = None
    server_t: int | None = None
    cursor: Cursor | None = None
    """Extension (`games`): more games follow; send it back in `games` for the next page."""
    engines: tuple[Name, ...] | None = None
    """Extension (`hello`): the server's engine bots, by name, that a bot seat may ask for
    (`engine`); absent when it has none."""
    key: Key | None = None
    """Extension (`claim`, `rotate`): the account's new key, sent this once."""
    account: bool = False
    """Extension (`hello`, `claim`, `rotate`): the name is an account's and the connection
    (`hello`) or the reply (`claim`, `rotate`) holds its key; absent for a guest."""
    name: Name | None = None
    """Extension (`hello`, `claim`): the name as the server shows it (an account's as it was
    claimed, whatever case the hello used)."""
    leaderboard: Annotated[tuple[PoolRating, ...], Items(MAX_PAGE * 8)] | None = None
    """Extension (`ratings`): the leaderboard, best first."""
    player: PlayerCard | None = None
    """Extension (`player`): the account's ratings and latest rated games."""
    tournament: TournamentView | None = None
    """Extension (`tournament_show`): the tournament as it stands."""
    tournament_id: TournamentId | None = None
    """Extension (`tournament_new`): the new tournament's id."""
    tournaments: Annotated[tuple[TournamentSummary, ...], Items(MAX_PAGE)] | None = None
    """Extension (`tournament_list`): the tournaments, the latest made first."""
    analysis: GameAnalysis | None = None
    """Extension (`analyse`): the game's analysis, when the server has made it."""
    queued: Count | None = None
    """Extension (`analyse`): not made yet; how many analyses are ahead of it (0: running)."""


@dataclass(frozen=True, slots=True)
class Error:
    """The failure reply: nothing changed on the server."""

    type: ClassVar[str] = "error"
    id: Id | None
    """The command's id, or None when the frame could not be read as a command."""
    code: Name
    """An `ErrorCode` value (a str, so that codes of newer servers still decode)."""
    message: Annotated[str, Text(MAX_TEXT, min=0)]
    retry_after_ms: Count | None = None
    """Extension (`too_many_attempts`): how long until another try may be made."""


# -- server -> client game events (each carries the game's version v) ---------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    type: ClassVar[str] = "snapshot"
    game_id: GameId
    v: Count
    game: Name
    options: dict[str, Any]
    status: Status
    position: Position
    to_move: Seat
    ply: Count
    history: Moves
    seats: TwoSeats
    legal: Moves | None = None
    """Only in the copy sent to the seat to move."""
    clocks: Clocks | None = None
    result: Result | None = None
    clock: ClockSpec | None = None
    """Extension: the game's time control."""
    created: Count | None = None
    """Extension: when the game was created, in milliseconds since the epoch (UTC)."""
    takeback: Seat | None = None
    """Extension: the seat whose takeback request waits for an answer, if any."""
    draw: Seat | None = None
    """Extension: the seat whose draw offer waits for an answer, if any."""
    pace_ms: Pace | None = None
    """Extension: the game's pace (`create`'s `pace_ms`), if it has one: a bot client that
    keeps it moves no faster than the server's bots."""
    rematch: Seat | None = None
    """Extension, once over: the seat whose rematch offer waits for an answer, if any, so that
    a player who comes back to the finished game sees it."""
    rated: bool = False
    """Extension: the game is rated (docs/ratings.md)."""
    analysis: GameAnalysis | None = None
    """Extension, once over: the game's analysis, if the server made one (`analyse`)."""


@dataclass(frozen=True, slots=True)
class Moved:
    type: ClassVar[str] = "moved"
    game_id: GameId
    v: Version
    ply: Count
    """The ply of the move just played; the game is now at ply + 1."""
    seat: Seat
    move: MoveText
    position: Position
    to_move: Seat
    legal: Moves | None = None
    """Only in the copy sent to the seat to move, and only while the game goes on."""
    clocks: Clocks | None = None
    info: BotInfo | None = None
    """For moves of server-hosted bots, and of bot clients that sent their search report."""


@dataclass(frozen=True, slots=True)
class Over:
    type: ClassVar[str] = "over"
    game_id: GameId
    v: Version
    result: Result
    ratings: tuple[RatingChange, RatingChange] | None = None
    """Extension: a rated game's rating changes, seat 0's then seat 1's."""


@dataclass(frozen=True, slots=True)
class SeatEvent:
    """Someone joined a seat, left it, came back, or the seat was freed (`name` None)."""

    type: ClassVar[str] = "seat"
    game_id: GameId
    v: Version
    seat: Seat
    name: Name | None
    connected: bool
    grace_ms: Count | None = None
    """Extension: when a player dropped, how long the seat is held for them."""
    status: Status | None = None
    """Extension: the game's status after this event (`playing` once the last seat is taken)."""
    legal: Moves | None = None
    """Extension: when this event starts the game, the legal moves, to the seat to move only."""
    clocks: Clocks | None = None
    """Extension: the clocks after this event, if the game has any."""
    client: Name | None = None
    """Extension: as in the seat info, `bot` when a bot client plays the seat."""
    account: bool = False
    """Extension: as in the seat info, the seat's player proved the name's key."""


TakebackState = Literal["asked", "declined", "accepted"]


@dataclass(frozen=True, slots=True)
class TakebackRequest:
    """Extension: a takeback request was made (`asked`), `declined`, or `accepted`: then the
    game went back to `ply`, with `position`, `to_move`, `clocks` (and `legal` for the seat to
    move) as after a `moved`. A request is pending from `asked` until its answer, a move or the
    end of the game."""

    type: ClassVar[str] = "takeback_request"
    game_id: GameId
    v: Version
    seat: Seat
    """The seat that asked."""
    state: TakebackState
    ply: Count
    """The game's ply after this event."""
    position: Position | None = None
    """When accepted: the position the game went back to."""
    to_move: Seat | None = None
    """When accepted: the seat to move now (the asker's)."""
    legal: Moves | None = None
    """When accepted, in the copy for the seat to move only."""
    clocks: Clocks | None = None


DrawState = Literal["offered", "declined"]


@dataclass(frozen=True, slots=True)
class DrawOffer:
    """Extension: a draw was `offered`, or `declined` (by an answer, or by the opponent's
    move). An offer stands from `offered` until its answer, a move, a takeback request or the
    end of the game; accepted, the game ends at once (`over`, no winner, reason `agreement`)."""

    type: ClassVar[str] = "draw_offer"
    game_id: GameId
    v: Version
    seat: Seat
    """The seat that offered."""
    state: DrawState


RematchState = Literal["offered", "declined", "withdrawn", "accepted"]


@dataclass(frozen=True, slots=True)
class RematchOffer:
    """Extension, to everyone in a finished game: a rematch was `offered`, `declined`,
    `withdrawn` (the offerer left) or `accepted`: then `new_game_id` is the new game, and each
    player's own copy carries their seat in it and its token. Not a game event: no `v`, not
    stored, not replayed."""

    type: ClassVar[str] = "rematch_offer"
    game_id: GameId
    seat: Seat
    """The seat that offered."""
    state: RematchState
    new_game_id: GameId | None = None
    new_seat: Seat | None = None
    """In a player's own copy: the seat they have in the new game."""
    token: Token | None = None
    """In a player's own copy: the token of that seat."""


@dataclass(frozen=True, slots=True)
class TournamentEvent:
    """Extension, to a tournament's subscribers (`tournament_show` with `subscribe`): it changed;
    `paired`: a round was paired (these games start now, the entrants' seats wait for them)."""

    type: ClassVar[str] = "tournament"
    tournament: TournamentView
    paired: Annotated[tuple[PairingLine, ...], Items(MAX_PAGE * 10)] = ()


@dataclass(frozen=True, slots=True)
class AnalysisEvent:
    """Extension, to whoever asked for a game's analysis and everyone following the game: it is
    `done` (with `analysis`) or `failed` (with `message`). Not a game event: no `v`; the
    analysis stays with the game (`snapshot`, `analyse`)."""

    type: ClassVar[str] = "analysis"
    game_id: GameId
    state: Literal["done", "failed"]
    analysis: GameAnalysis | None = None
    message: Annotated[str, Text(MAX_TEXT, min=0)] | None = None


@dataclass(frozen=True, slots=True)
class Lobby:
    """Extension, to connections that subscribed with `games`: a game was created, a seat was
    taken or freed, or its status changed (not on every move: `ply` is as of this change)."""

    type: ClassVar[str] = "lobby"
    game: GameSummary


Command = (
    Hello
    | Claim
    | Rotate
    | ListGames
    | Create
    | Cancel
    | Join
    | Resume
    | Watch
    | Move
    | Resign
    | Abort
    | Draw
    | DrawAnswer
    | Takeback
    | TakebackAnswer
    | Rematch
    | RematchAnswer
    | Ratings
    | Player
    | TournamentNew
    | TournamentJoin
    | TournamentStart
    | TournamentShow
    | TournamentList
    | Analyse
    | Ping
)
"""What a client sends."""
Reply = Ok | Error
Event = Snapshot | Moved | Over | SeatEvent | TakebackRequest | DrawOffer
"""Events of one game, each with its version `v`."""
ServerMessage = Reply | Event | Lobby | RematchOffer | TournamentEvent | AnalysisEvent
"""What a server sends."""
Message = Command | ServerMessage

COMMAND_TYPES: tuple[type[Command], ...] = (
    Hello,
    Claim,
    Rotate,
    ListGames,
    Create,
    Cancel,
    Join,
    Resume,
    Watch,
    Move,
    Resign,
    Abort,
    Draw,
    DrawAnswer,
    Takeback,
    TakebackAnswer,
    Rematch,
    RematchAnswer,
    Ratings,
    Player,
    TournamentNew,
    TournamentJoin,
    TournamentStart,
    TournamentShow,
    TournamentList,
    Analyse,
    Ping,
)
SERVER_MESSAGE_TYPES: tuple[type[ServerMessage], ...] = (
    Ok,
    Error,
    Snapshot,
    Moved,
    Over,
    SeatEvent,
    TakebackRequest,
    DrawOffer,
    Lobby,
    RematchOffer,
    TournamentEvent,
    AnalysisEvent,
)
