"""The batched-kernel contract that every game of the suite implements.

A *kernel* holds the rules of one game and nothing else. Its state is a dataclass of
numpy arrays whose first axis is the batch: ``B`` independent games advance in lockstep.
The same kernel runs one game under the PettingZoo AEC adapter (``B = 1``,
:mod:`cardzoo.envs.core.aec`) or thousands at once for training and benchmarks.

Contract (all arrays have a leading batch axis ``B``):

* ``init(rng, batch, **hooks) -> State``: shuffle and deal ``batch`` games. All chance
  comes from the ``rng`` passed in (to ``init`` and ``step``), never from global numpy state:
  a ``numpy.random.Generator`` (one stream for the batch) or a
  :class:`~cardzoo.envs.core.chance.RowStreams` (one stream per game, as the arena's
  duplicate deals use). Kernels draw only through :mod:`cardzoo.envs.core.chance`.
* ``legal_actions(state) -> bool[B, A]``: action mask of the player to act (all False in
  finished games).
* ``step(state, actions: int[B], rng) -> None``: apply one action per game *in place*, then
  advance every game to its next decision (resolve tricks, score deals, deal again). Finished
  games ignore their action and stay finished; with ``active`` (``bool[B]``) only those games
  move. ``state.rewards`` holds the rewards of this
  step (``float64[B, P]``), ``state.done`` / ``state.truncated`` the episode ends,
  ``state.current_player`` the seat to act next.
* ``observe(state, seat) -> uint8[B, D]``: what ``seat`` (an int, or ``int[B]``) may know
  and nothing more, seat-relative (me, next, partner, previous).
* ``global_state(state) -> uint8[B, S]``: the full perfect-information view.
* ``state.copy()``: an independent deep copy, for search and tests.
* ``reset_done(state, rng)``: deal fresh games in place wherever ``state.done`` is set
  (auto-reset for batched training).
* ``outcome(returns) -> int8[..., P]``: win (+1), draw (0) or loss (-1) of each seat from its
  episode return, equal for partners; ``null_win_rate``: what the arena's win rate of one
  agent against an equal one is in expectation (see :meth:`Kernel.outcome`).
* ``episode_outcome(state, returns) -> int8[B, P]``: the outcome of finished games, as the arena
  counts it: a capped game is a draw, and a game whose winner is not the side with the higher
  return says so (Avinas' match).

The step path never loops in Python over the ``B`` games: loops over the few seats or
tricks are fine.
"""

from __future__ import annotations

import dataclasses
import numbers
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from . import chance
from .cards import Deck, mask_to_cards

__all__ = [
    "ILLEGAL_ACTION_MODES",
    "BatchState",
    "Kernel",
    "Layout",
    "LayoutEntry",
    "Option",
    "bool_option",
    "check_options",
    "check_reset_options",
    "check_seed",
    "check_permutation",
    "hook_deck",
    "hook_ints",
    "int_option",
    "is_int",
    "one_deal_episodes",
    "state_field",
]


def state_field(dtype, shape: tuple = (), fill=0, doc: str = ""):
    """Declare a field of a :class:`BatchState` subclass once: its ``dtype``, its per-game ``shape``
    (ints, or names of sizes the kernel gives in :meth:`Kernel.state_dims`, e.g. ``"players"``),
    the value a new game starts with (``fill``) and one line for people (``doc``).

    :meth:`BatchState.allocate` makes the arrays (``dtype[B, *shape]`` filled with ``fill``) and the
    class docstring lists every field from these declarations, so a field is named once."""
    return dataclasses.field(
        metadata={"dtype": np.dtype(dtype), "shape": tuple(shape), "fill": fill, "doc": doc}
    )


def _shape_text(dtype: np.dtype, shape: tuple) -> str:
    dims = ", ".join(["B", *(str(d) for d in shape)])
    return f"{np.dtype(dtype).name}[{dims}]"


#: (state class, sizes) -> one game's fresh arrays (see :meth:`BatchState.allocate`)
_PROTOTYPES: dict = {}


@dataclasses.dataclass
class BatchState:
    """Base of every kernel state: a dataclass whose fields are numpy arrays of leading axis B.

    Fields are declared once with :func:`state_field`; the fields of a subclass are listed in its
    docstring from those declarations. Required fields shared by every game:
    """

    current_player: np.ndarray = state_field(np.int8, (), 0, "seat to act (undefined in finished games)")
    done: np.ndarray = state_field(bool, (), False, "the episode has ended (terminated or truncated)")
    truncated: np.ndarray = state_field(bool, (), False, "the episode was cut by a safety cap")
    rewards: np.ndarray = state_field(np.float64, ("players",), 0, "rewards of the last ``step`` (zero otherwise)")

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        lines = []
        for name in cls.__dict__.get("__annotations__", {}):
            f = cls.__dict__.get(name)
            if isinstance(f, dataclasses.Field) and "dtype" in f.metadata:
                m = f.metadata
                lines.append(f"    * ``{name}``: ``{_shape_text(m['dtype'], m['shape'])}`` {m['doc']}")
        if lines:
            cls.__doc__ = (cls.__doc__ or "").rstrip() + "\n\n    Fields (beyond :class:`BatchState`):\n\n" + "\n".join(lines) + "\n"

    @classmethod
    def allocate(cls, batch: int, dims: dict[str, int]):
        """A state of ``batch`` new games: every field made from its :func:`state_field` declaration,
        an array of shape ``(batch, *declared shape)`` with the declared dtype and fill value.

        ``dims`` gives the named sizes (e.g. ``{"players": 4}``); ``ValueError`` for a field
        declared without :func:`state_field` or a size not in ``dims``."""
        key = (cls, tuple(sorted(dims.items())))
        proto = _PROTOTYPES.get(key)
        if proto is None:  # one game of fresh fields, made once per state class and sizes
            arrays = {}
            for f in dataclasses.fields(cls):
                m = f.metadata
                if "dtype" not in m:
                    raise ValueError(f"{cls.__name__}.{f.name} is not declared with state_field(); cannot allocate it")
                try:
                    shape = tuple(d if isinstance(d, int) else int(dims[d]) for d in m["shape"])
                except KeyError as e:
                    raise ValueError(f"{cls.__name__}.{f.name}: size {e.args[0]!r} is not in {sorted(dims)}") from None
                arrays[f.name] = np.full((1, *shape), m["fill"], dtype=m["dtype"])
            proto = _PROTOTYPES[key] = arrays
        batch = int(batch)
        if batch == 1:  # the AEC env's reset: copies of the prototype row
            return cls(**{name: a.copy() for name, a in proto.items()})
        return cls(**{name: np.repeat(a, batch, axis=0) for name, a in proto.items()})

    @classmethod
    def describe(cls) -> list[tuple[str, str, str]]:
        """``(name, "dtype[B, ...]", doc)`` of every declared field, in declaration order."""
        return [
            (f.name, _shape_text(f.metadata["dtype"], f.metadata["shape"]), f.metadata["doc"])
            for f in dataclasses.fields(cls)
            if "dtype" in f.metadata
        ]

    @property
    def batch_size(self) -> int:
        """Number of games ``B`` in the batch."""
        return int(self.done.shape[0])

    def copy(self):
        """Independent deep copy (every array copied)."""
        return dataclasses.replace(self, **{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def take(self, index):
        """A new state holding games ``index`` (int array, bool mask or slice) of this one (copied).
        ``ValueError`` for a single int (``take(2)`` made a state without its batch axis: use ``[2]``)."""
        if not isinstance(index, slice) and np.ndim(index) == 0:
            raise ValueError(f"index must be an int array, a bool mask or a slice of games, got {index!r} (one game: [{index!r}])")
        return dataclasses.replace(self, **{f.name: getattr(self, f.name)[index].copy() for f in dataclasses.fields(self)})

    def put(self, index, other: "BatchState") -> None:
        """Overwrite games ``index`` of this state with the games of ``other`` (same type).

        ``ValueError`` before anything is written for a state of another type (another game's) or of
        other per-game shapes (e.g. another player count), or a count of games other than ``index``
        selects: the fields shared by every game were written first, then the write failed partway."""
        if type(other) is not type(self):
            raise ValueError(f"put needs a {type(self).__name__} (a state of the same game), got {type(other).__name__}")
        n = np.arange(self.batch_size)[index].size
        fields = [f.name for f in dataclasses.fields(self)]
        odd = [name for name in fields if getattr(other, name).shape[1:] != getattr(self, name).shape[1:]]
        if odd:
            raise ValueError(f"put: the state given has other per-game shapes (other options, e.g. another player count) in {odd}")
        if other.batch_size != n:
            raise ValueError(f"put: index selects {n} of this state's games; the state given holds {other.batch_size}")
        for name in fields:
            getattr(self, name)[index] = getattr(other, name)

    def nbytes_per_game(self) -> float:
        """Bytes of numpy state per game (array payload only)."""
        total = sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))
        return total / self.batch_size


@dataclasses.dataclass(frozen=True)
class LayoutEntry:
    """One named slice of an observation or state vector.

    Attributes:
        name: e.g. ``"hand"`` or ``"played_by[next]"``.
        start, stop: the slice ``obs[..., start:stop]``.
        high: largest value an entry can take (1 for card sets and one-hots).
        meaning: one line for people.
    """

    name: str
    start: int
    stop: int
    high: int
    meaning: str

    @property
    def slice(self) -> slice:
        """``slice(start, stop)``: ``obs[..., entry.slice]`` is this entry's ``stop - start`` features."""
        return slice(self.start, self.stop)


class Layout:
    """Builder and printer for a flat observation layout made of named slices."""

    def __init__(self) -> None:
        self.entries: list[LayoutEntry] = []
        self.size = 0

    def add(self, name: str, size: int, meaning: str, high: int = 1) -> int:
        """Append a slice of ``size`` entries; returns its start offset."""
        start = self.size
        self.entries.append(LayoutEntry(name, start, start + size, high, meaning))
        self.size += size
        return start

    def __getitem__(self, name: str) -> slice:
        for e in self.entries:
            if e.name == name:
                return e.slice
        raise KeyError(f"no slice named {name!r}; names: {[e.name for e in self.entries]}")

    def offsets(self, names: tuple[str, ...]) -> np.ndarray:
        """``int64[len(names)]`` start offsets of the named slices (cached)."""
        key = tuple(names)
        cache = self.__dict__.setdefault("_offsets", {})
        if key not in cache:
            cache[key] = np.array([self[n].start for n in names], dtype=np.int64)
        return cache[key]

    def high(self) -> np.ndarray:
        """Per-entry upper bound, ``float32[D]`` (the Box's ``high``)."""
        h = np.zeros(self.size, dtype=np.float32)
        for e in self.entries:
            h[e.start : e.stop] = e.high
        return h

    # ---- the packed form ----------------------------------------------------
    def _pack_index(self) -> tuple[np.ndarray, np.ndarray]:
        cache = self.__dict__.get("_pack")
        if cache is None or cache[2] != self.size:
            binary = np.zeros(self.size, dtype=bool)
            for e in self.entries:
                binary[e.start : e.stop] = e.high <= 1
            cache = self.__dict__["_pack"] = (np.flatnonzero(binary), np.flatnonzero(~binary), self.size)
        return cache[0], cache[1]

    @property
    def packed_size(self) -> int:
        """Bytes of the packed form: ``ceil(n_binary / 8)`` bit bytes + one byte per other feature."""
        bits, ints = self._pack_index()
        return -(-bits.size // 8) + ints.size

    def pack(self, obs: np.ndarray) -> np.ndarray:
        """The packed form of ``obs`` (``uint8[..., size]``, laid out as this layout): ``uint8[..., packed_size]``.

        Layout of the packed form: first the 0/1 features (every slice whose ``high`` is 1), in
        layout order, packed 8 to a byte with the first feature in the lowest bit
        (``numpy.packbits(..., bitorder="little")``); then every other feature (counts, scores:
        slices with ``high > 1``), one byte each, in layout order. :meth:`unpack` inverts it; a
        learner can unpack on its device with the same two index lists (:meth:`packed_index`).
        Input that would not come back from :meth:`unpack` as given (not ints, a value outside 0..255, a
        0/1 feature holding more than 1) raises ``ValueError`` naming the feature."""
        bits, ints = self._pack_index()
        obs = np.asarray(obs)
        if obs.dtype.kind not in "iu":  # a float or bool array would be cast (0.5 -> 0) without a word
            raise ValueError(f"observation must be ints (uint8 as observe gives them), got {obs.dtype}")
        if obs.shape[-1] != self.size:
            raise ValueError(f"observation has {obs.shape[-1]} features; this layout has {self.size}")
        if obs.dtype != np.uint8:
            self._refuse_unpackable(obs, (obs < 0) | (obs > 255), "0..255")
            obs = obs.astype(np.uint8)
        on = obs[..., bits]
        if on.size and on.max() > 1:  # packbits would keep any non-zero as 1
            self._refuse_unpackable(obs, np.isin(np.arange(self.size), bits) & (obs > 1), "0 or 1")
        packed = np.packbits(on, axis=-1, bitorder="little")
        return np.concatenate([packed, obs[..., ints]], axis=-1)

    def _refuse_unpackable(self, obs: np.ndarray, bad: np.ndarray, keeps: str) -> None:
        """``ValueError`` naming the first feature of ``obs`` where ``bad`` holds (nothing if none does)."""
        if not bad.any():
            return
        where = tuple(np.argwhere(bad)[0])
        i = int(where[-1])
        e = next(e for e in self.entries if e.start <= i < e.stop)
        kind = ", 0/1" if e.high <= 1 else ""
        raise ValueError(f"observation feature {i} (slice {e.name!r}{kind}) is {obs[where]}: pack keeps {keeps} only")

    def unpack(self, packed: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`pack`: ``uint8[..., packed_size]`` -> ``uint8[..., size]``; ``ValueError`` for input
        that is not bytes (not ints, or a value outside 0..255, which a cast would change without a word)."""
        bits, ints = self._pack_index()
        packed = np.asarray(packed)
        if packed.dtype.kind not in "iu":
            raise ValueError(f"packed observation must be ints (uint8 as pack gives them), got {packed.dtype}")
        if packed.dtype != np.uint8:
            bad = (packed < 0) | (packed > 255)
            if bad.any():
                where = tuple(np.argwhere(bad)[0])
                raise ValueError(f"packed observation byte {where[-1]} is {packed[where]}: a byte holds 0..255")
            packed = packed.astype(np.uint8)
        nb = -(-bits.size // 8)
        if packed.shape[-1] != nb + ints.size:
            raise ValueError(f"packed observation has {packed.shape[-1]} bytes; this layout packs into {nb + ints.size}")
        out = np.zeros((*packed.shape[:-1], self.size), dtype=np.uint8)
        out[..., bits] = np.unpackbits(packed[..., :nb], axis=-1, count=bits.size, bitorder="little")
        out[..., ints] = packed[..., nb:]
        return out

    def packed_index(self) -> tuple[np.ndarray, np.ndarray]:
        """``(binary, other)``: ``int64`` positions in the full vector of the packed form's bit
        features and byte features, in packed order (see :meth:`pack`)."""
        bits, ints = self._pack_index()
        return bits.copy(), ints.copy()

    def table(self) -> str:
        """Human-readable table of the slices."""
        w = max(len(e.name) for e in self.entries)
        lines = [f"{'slice':<{w}}  {'range':>9}  {'max':>4}  meaning"]
        for e in self.entries:
            lines.append(f"{e.name:<{w}}  {e.start:>4}:{e.stop:<4}  {e.high:>4}  {e.meaning}")
        lines.append(f"total size {self.size}")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Option:
    """A constructor option of a kernel: default and validity check.

    ``choices`` lists the valid values (checked with ``in``); otherwise ``check`` is a
    predicate and ``valid`` describes the valid values in words. ``aliases``: ``(alias, choice)``
    pairs of other accepted spellings of a choice, which ``validate`` turns into the choice (the
    first dealer drawn at random is ``None`` in All Fours' spec and ``"random"`` in the others').
    """

    default: Any
    choices: tuple | None = None
    check: Any = None
    valid: str = ""
    aliases: tuple = ()

    def validate(self, name: str, value: Any) -> Any:
        """Return ``value`` if valid, as a plain Python value (a numpy scalar such as ``np.int64(5)``
        becomes ``5``, so options stay JSON-serializable; an alias becomes its choice), else raise
        ``ValueError`` naming the valid values."""
        if self.choices is not None:
            for alias, c in self.aliases:
                if _same_kind(value, alias) and value == alias:
                    return c
            for c in self.choices:
                if _same_kind(value, c) and value == c:
                    return c
            also = "".join(f" ({a!r} is accepted for {c!r})" for a, c in self.aliases)
            raise ValueError(f"option {name}={value!r} is not valid; valid values: {list(self.choices)}{also}")
        if self.check is not None and not self.check(value):
            raise ValueError(f"option {name}={value!r} is not valid; valid values: {self.valid}")
        return value.item() if isinstance(value, np.generic) else value


def is_int(x) -> bool:
    """Whether ``x`` is an integer: a Python ``int``, a numpy integer (``np.int64(2)``) or any other
    ``numbers.Integral``, but not a ``bool`` (``True`` is not a seat or a seed)."""
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_real(x) -> bool:
    """Whether ``x`` is a real number: a Python ``int`` or ``float``, a numpy number (``np.float32(0.5)``)
    or any other ``numbers.Real``, but not a ``bool``. It may be NaN or infinite: callers that need a
    finite value check ``math.isfinite`` too."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def check_seed(seed, name: str = "seed") -> int | None:
    """``seed`` (of ``reset`` or a constructor) as ``None`` or a plain ``int``: a non-negative integer,
    numpy integers included. Anything else raises ``ValueError`` naming ``name``, the value and what
    is valid, before numpy sees it (it says "expected non-negative integer" or names its
    ``SeedSequence``). The one check of every env's seed (AEC, vector, single-seat)."""
    if seed is None:
        return None
    if not is_int(seed) or seed < 0:
        raise ValueError(f"{name} must be a non-negative int or None, got {seed!r}")
    return int(seed)


def check_reset_options(options, valid, where: str) -> dict:
    """The ``options`` of ``reset`` as a new ``dict`` (``None`` is ``{}``). Anything but a mapping
    raises ``ValueError`` naming the value and the valid option names (``valid``) of ``where`` (the
    env's name). Which names are valid is the caller's check."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        names = list(valid) if len(valid) else "none"
        raise ValueError(
            f"reset options must be a dict of option name -> value or None, got {options!r}; "
            f"valid option names for {where}: {names}"
        )
    return dict(options)


def _same_kind(a, b) -> bool:
    if b is None or a is None:
        return a is b
    if isinstance(b, bool):
        return isinstance(a, (bool, np.bool_))
    if is_int(b):
        return is_int(a)
    if isinstance(b, str):  # numpy's str_ (an option read from an array) is a str
        return isinstance(a, str)
    return type(a) is type(b)


def int_option(default: int, lo: int, hi: int | None = None) -> Option:
    """An int option that must be ``>= lo`` (and ``<= hi`` when given)."""
    if hi is None:
        return Option(default, check=lambda v: is_int(v) and v >= lo, valid=f"an int >= {lo}")
    return Option(default, check=lambda v: is_int(v) and lo <= v <= hi, valid=f"an int from {lo} to {hi}")


def bool_option(default: bool) -> Option:
    """A bool option."""
    return Option(default, choices=(True, False))


def hook_ints(name: str, value, shape: tuple, lo: int, hi: int) -> np.ndarray:
    """Validate a test hook of ``init`` (e.g. a stacked ``deck``): ints of shape ``shape[1:]`` (one
    value for every game, e.g. ``score=[3, 1]``) or ``shape`` (one per game), each in ``[lo, hi]``.
    Returns the array of shape ``shape``; ``ValueError`` naming the hook, the valid shapes (and the one
    given) or the range otherwise. Other shapes that numpy would broadcast (``score=[[1]]``) are refused:
    they are not what the message states."""
    valid = f"int(s) of shape {shape[1:]} (or {shape})"
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged lists
        raise ValueError(f"reset option {name}={value!r} must be {valid}") from None
    if arr.dtype.kind not in "iu":
        raise ValueError(f"reset option {name}={value!r} must be {valid}")
    if arr.shape not in (tuple(shape[1:]), tuple(shape)):
        raise ValueError(f"reset option {name}={value!r} must be {valid}, got shape {arr.shape}")
    arr = np.broadcast_to(arr, shape)
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(f"reset option {name}={value!r} is out of range: each value must be in {lo}..{hi}")
    return arr


def check_permutation(name: str, arr: np.ndarray) -> np.ndarray:
    """``arr`` (``int[B, N]``: a stacked pack per game, e.g. the ``deck`` hook) if every row is a
    permutation of the card ids ``0..N-1``; else ``ValueError`` naming the hook, an id given more than
    once and an id missing (and the game, for one row per game). The one check of every kernel's
    stacked packs."""
    B, N = arr.shape
    ok = (np.sort(arr, axis=1) == np.arange(N)).all(axis=1)
    if not ok.all():
        b = int(np.flatnonzero(~ok)[0])
        counts = np.bincount(arr[b], minlength=N)
        twice, missing = int(np.flatnonzero(counts > 1)[0]), int(np.flatnonzero(counts == 0)[0])
        raise ValueError(
            f"reset option {name} must be a permutation of the {N} card ids 0..{N - 1} (each id exactly once): "
            f"id {twice} is given {counts[twice]} times and id {missing} is missing" + (f" (game {b})" if B > 1 else ""))
    return arr


def hook_deck(name: str, value, shape: tuple) -> np.ndarray:
    """A stacked pack hook of ``init`` (``deck``): :func:`hook_ints` of ``shape`` ``(B, N)`` with ids in
    ``0..N-1``, each row a permutation (:func:`check_permutation`)."""
    return check_permutation(name, hook_ints(name, value, shape, 0, shape[1] - 1))


#: values of the ``illegal_action`` option of every env (AEC, vector, single-seat)
ILLEGAL_ACTION_MODES = ("raise", "lose")


def check_illegal_action(value) -> str:
    """``value`` if it is one of :data:`ILLEGAL_ACTION_MODES`, else ``ValueError`` naming it and the valid
    values (also for a value that is not a str, e.g. an array, which ``in`` would compare element-wise).
    The one check of every env's ``illegal_action``."""
    if not isinstance(value, str) or value not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action={value!r} is not valid; valid values: {list(ILLEGAL_ACTION_MODES)}")
    return value


def did_you_mean(unknown, known) -> str:
    """The hint that follows the unknown option names ``unknown`` (sorted) in a refusal: ``" (did you
    mean 'undertrump'?)"`` naming the closest of the names ``known`` (``difflib``), for each unknown
    name that has one (``" (did you mean 'n_det' for 'n_dets', ...?)"`` when several names are
    unknown); ``""`` when none is close. The one hint of every refused option name (kernel, AEC,
    vector and single-seat envs, the agents' factories, the CLI's ``-o``)."""
    import difflib

    known = sorted(k for k in known if isinstance(k, str))
    close = [(u, m[0]) for u in unknown if isinstance(u, str) and (m := difflib.get_close_matches(u, known, n=1))]
    if not close:
        return ""
    return f" (did you mean {', '.join(f'{m!r} for {u!r}' if len(unknown) > 1 else repr(m) for u, m in close)}?)"


def check_option_names(kernel_cls: type["Kernel"], given, own, who: str) -> None:
    """``ValueError`` if a name in ``given`` (the keyword arguments of a constructor that passes the
    game's options on) is neither an option of ``kernel_cls`` (aliases included) nor one of
    the constructor's own parameters ``own``: a misspelt ``num_env`` or ``oponents`` is told the game's
    options and ``who``'s own (``"env options: [...]"``), not the game's options alone, and the closest
    known name (:func:`did_you_mean`)."""
    known = set(kernel_cls.OPTIONS) | set(kernel_cls.OPTION_ALIASES) | set(own)
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}{did_you_mean(unknown, known)}; valid options: {sorted(kernel_cls.OPTIONS)}; "
                         f"{who} options: {sorted(own)}")


def misplaced_reset_options(kernel_cls: type["Kernel"], names, given: Mapping, make: str, own=()) -> str:
    """The end of the message that refuses the reset options ``names`` (keys of ``given``): for each
    name that is an option of the env's constructor (one of ``kernel_cls``'s options, aliases
    included, or of the constructor's own parameters ``own``), that it is given where the env is made
    (``make`` opens that call, e.g. ``"cardzoo.make('pyanitsa'"``), and for ``seed`` that it is reset's
    own argument. ``""`` if no name is either: "unknown reset option(s) ['num_players']" alone read as if
    the game had no such option."""
    parts = []
    for name in names:
        if name == "seed":
            parts.append(f"'seed' is reset's own argument: reset(seed={given[name]!r})")
        elif isinstance(name, str) and (name in kernel_cls.OPTIONS or name in kernel_cls.OPTION_ALIASES or name in own):
            parts.append(f"'{name}' is an option of the env, not of reset: give it when the env is made, "
                         f"e.g. {make}, {name}={given[name]!r})")
    return "".join(f"; {p}" for p in parts)


def shared_name_hint(kernel_cls: type["Kernel"], hooks: Mapping, make: str) -> str:
    """For a refused reset, where a reset option shares its name with a constructor option (P'yanitsa's
    ``deck``: the order of the pack at reset, the 36- or 52-card pack at construction) and its value is
    a valid value of the constructor option: the end of the message, saying where that value goes
    (``make`` opens that call); ``""`` otherwise."""
    parts = []
    for name, value in hooks.items():
        opt = kernel_cls.OPTIONS.get(name)
        if opt is None:
            continue
        try:
            opt.validate(name, value)
        except (ValueError, TypeError):
            continue
        parts.append(f"{name}={value!r} is a value of the env's option '{name}': give it when the env is made, "
                     f"e.g. {make}, {name}={value!r})")
    return "".join(f"; {p}" for p in parts)


def check_options(spec: dict[str, Option], given: dict[str, Any]) -> dict[str, Any]:
    """Validate ``given`` options against ``spec``; return the full option dict.

    Raises ``ValueError`` for an unknown option name (listing the known ones and the closest,
    :func:`did_you_mean`) or an invalid value (listing the valid values).
    """
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}{did_you_mean(unknown, spec)}; valid options: {sorted(spec)}")
    out = {}
    for name, opt in spec.items():
        out[name] = opt.validate(name, given.get(name, opt.default))
    return out



def one_deal_episodes(options: Mapping | None) -> bool:
    """Whether game options make every episode one deal: ``episode`` ``"hand"``/``"deal"`` or absent,
    and no ``match_target`` (conservative: Aluette's ``episode="deal"`` with a ``match_target``, also
    one deal, says ``False``; so does an ``episode`` value no game has). The one test of it for the
    AEC env, PIMC search (each rollout plays the deal to its end) and training's expert stage.

    ``options``: a mapping of game options (a kernel's ``options``, or only those given), ``None``
    for the defaults. ``ValueError`` for anything else."""
    if options is None:
        return True
    if not isinstance(options, Mapping):
        raise ValueError(f"options must be a mapping of game options (or None for the defaults), got {options!r}")
    return options.get("episode", "hand") in ("hand", "deal") and options.get("match_target") is None


class Kernel(ABC):
    """Abstract batched game kernel (see the module docstring for the contract).

    Subclasses set the class attributes below and implement the abstract methods.
    """

    #: registry name of the game, e.g. ``"all_fours"``
    name: ClassVar[str]
    #: the pack the game is played with
    deck: ClassVar[Deck]
    #: number of seats
    num_players: int
    #: size of the flat ``Discrete`` action space
    num_actions: int
    #: teams as lists of seats (``None`` for games without partnerships)
    teams: list[list[int]] | None
    #: the game's name for people, e.g. ``"P'yanitsa"`` (front ends show it)
    display_name: ClassVar[str] = ""
    #: what one episode is called in the game's own terms where the game has no ``episode``
    #: option (P'yanitsa ``"game"``); see :attr:`episode_name`, which a game may override
    EPISODE_NAME: ClassVar[str] = "episode"
    #: where the next seat in turn sits, seen from a seat: ``"left"`` (play goes clockwise) or
    #: ``"right"`` (anticlockwise); front ends seat the players by it
    next_seat_side: ClassVar[str] = "left"
    #: whether the rewards of every step sum to zero over the seats
    zero_sum: bool = True
    #: the constructor options: name -> Option
    OPTIONS: ClassVar[dict[str, Option]] = {}
    #: keyword test hooks that ``init`` accepts (passed from ``reset(options=...)``)
    INIT_HOOKS: ClassVar[tuple[str, ...]] = ()
    #: the ``INIT_HOOKS`` that fix the cards dealt (a deal with them again deals the same cards; the
    #: AEC and single-seat envs do not deal again a game these hooks ended before anyone acted)
    CARD_HOOKS: ClassVar[tuple[str, ...]] = ()
    #: another accepted name of an option -> the option's name (e.g. P'yanitsa's ``n_players``, the
    #: rules spec's name, for ``num_players``, PettingZoo's); both are accepted without a warning
    OPTION_ALIASES: ClassVar[dict[str, str]] = {}
    #: options that change only the observation (not the rules, the state, the actions), e.g.
    #: P'yanitsa's ``observe_history``: a trained agent whose value differs observes the game
    #: through a kernel of its own values (``cardzoo.agents.options.check_layout``)
    OBSERVATION_OPTIONS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, **options: Any) -> None:
        canonical = self.canonical_options(options)
        try:
            self.options = check_options(self.OPTIONS, canonical)
        except ValueError as e:
            aliases = [f"{a!r} (another name of {n!r})" for a, n in self.OPTION_ALIASES.items() if a in options]
            if not aliases:
                raise
            raise ValueError(f"{e}; given as {', '.join(aliases)}") from None

    @classmethod
    def canonical_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` with aliases (``OPTION_ALIASES``) replaced by the options' names; the
        constructor and readers of saved options (an ``agent.json``) call it. ``ValueError`` if both
        a name and its alias are given."""
        out = dict(options)
        for alias, name in cls.OPTION_ALIASES.items():
            if alias in out:
                if name in out:
                    raise ValueError(f"options {alias!r} and {name!r} name the same thing; pass only one of them")
                out[name] = out.pop(alias)
        return out

    @property
    def episode_name(self) -> str:
        """What one episode is called in the game's terms: the ``episode`` option where the game has
        one (``"hand"``, ``"deal"``, ``"match"``), else :attr:`EPISODE_NAME`. The arena's tables
        label their counts and means with it."""
        return str(self.options.get("episode", self.EPISODE_NAME))

    @property
    def has_choices(self) -> bool:
        """Whether some decision of the game, under these options, can have more than one legal
        action (``True`` for every game but P'yanitsa without ``collect_order="winner_chooses"``,
        whose every move is the forced ``FLIP``). The vector env refuses ``skip_forced=True``
        where it is ``False``: the learner would never be asked."""
        return True

    # ---- layouts -------------------------------------------------------------
    @property
    @abstractmethod
    def obs_layout(self) -> Layout:
        """The observation :class:`Layout` (named slices of ``observe``'s vector)."""

    @property
    @abstractmethod
    def state_layout(self) -> Layout:
        """The :class:`Layout` of ``global_state``'s vector."""

    # ---- the contract --------------------------------------------------------
    @abstractmethod
    def init(self, rng: np.random.Generator, batch: int, **hooks: Any) -> BatchState:
        """Shuffle and deal ``batch`` games with ``rng``; ``hooks`` (see ``INIT_HOOKS``) stack deals
        for tests. Returns the new state (leading axis ``batch``)."""

    @abstractmethod
    def legal_actions(self, state: BatchState) -> np.ndarray:
        """``bool[B, A]`` action mask of the seat to act in each game (all False in finished games)."""

    @abstractmethod
    def step(self, state: BatchState, actions: np.ndarray, rng: np.random.Generator, active=None) -> None:
        """Apply ``actions`` (``int[B]``) in place and advance each game to its next decision;
        ``active`` (``bool[B]``) restricts the step to those games. Rewards of the step are in
        ``state.rewards`` (``float64[B, P]``)."""

    @abstractmethod
    def observe(self, state: BatchState, seat) -> np.ndarray:
        """``uint8[B, D]`` observation of ``seat`` (an int or ``int[B]``), laid out as ``obs_layout``;
        only what that seat may know."""

    @abstractmethod
    def global_state(self, state: BatchState) -> np.ndarray:
        """``uint8[B, S]`` perfect-information vector (for centralised critics), laid out as ``state_layout``."""

    def single_game(self, state: BatchState):
        """Optional fast path for one game (``B = 1``): an object with ``legal_mask() -> bool[A]``,
        ``step(action, rng)`` and ``observe(seat) -> obs[D]`` that behaves exactly like the batched
        methods on ``state``. ``None`` (the default) makes the AEC adapter use the batched methods."""
        return None

    def reset_done(self, state: BatchState, rng: np.random.Generator) -> np.ndarray:
        """Deal fresh games in place wherever ``state.done``; returns the reset indices ``int[k]``."""
        idx = np.flatnonzero(state.done)
        if idx.size:
            state.put(idx, self.init(chance.take_rows(rng, idx), idx.size))
        return idx

    # ---- names ---------------------------------------------------------------
    @abstractmethod
    def action_name(self, action: int) -> str:
        """Name of an action id (card short name or phase action); ``ValueError`` (from
        :meth:`valid_action_id`) for anything that is not an action id of the game."""

    def valid_action_id(self, action) -> int:
        """``action`` as a plain ``int`` if it is an action id of this game: an integer (numpy
        integers included, ``bool`` not) in ``0..num_actions - 1``. Otherwise ``ValueError`` naming
        the value and the valid ids. The one check behind every game's :meth:`action_name`. A 0-d int
        array is the action it holds, as the AEC env's ``step`` takes it."""
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if not is_int(action):
            raise ValueError(f"action must be an int id 0..{self.num_actions - 1}, got {action!r}")
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {action!r} is out of range; valid ids are 0..{self.num_actions - 1}")
        return a

    def action_id(self, name: str) -> int:
        """Inverse of :meth:`action_name` (case-insensitive); ``ValueError`` if unknown."""
        if not isinstance(name, str):
            raise ValueError(f"action name must be a string such as {self.action_name(0)!r}, got {name!r}")
        key = name.strip().upper()
        for a in range(self.num_actions):
            if self.action_name(a).upper() == key:
                return a
        raise ValueError(
            f"{name!r} is not an action of {self.name}; actions are card names "
            f"({self.action_name(0)}, ...) and {[self.action_name(a) for a in range(self.deck.n, self.num_actions)]}"
        )

    def action_card(self, action: int) -> int | None:
        """The card (id in ``self.deck``) that ``action`` plays or places, or ``None`` for an action
        that plays no card (a bid, a signal). Default: actions ``0..deck.n - 1`` are the cards; a later
        action whose name ends in a card code (Avinas ``FD_AS``: that card face down) is that card.
        ``ValueError`` for an action out of range."""
        name = self.action_name(action)
        if int(action) < self.deck.n:
            return int(action)
        last = name.replace("(", "_").replace(")", "").split("_")[-1]
        try:
            return self.deck.card_id(last) if last else None
        except ValueError:
            return None

    def announce(self, before: BatchState, after: BatchState, action: int, actor: int, viewer: int) -> list[str] | None:
        """What ``viewer`` may learn from ``actor``'s ``action`` in game 0, given the states ``before``
        and ``after`` the step, as lines for people (terminal play, the web table's log). ``None`` (the
        default): the game has no such hook, and front ends show a public action by name and a hidden
        one (:meth:`action_is_public`) as a face-down card. A game whose seats learn different things
        (Aluette's partner-only signals) returns the lines, ``[]`` when ``viewer`` learns nothing."""
        return None

    # ---- evaluation --------------------------------------------------------------
    def sides(self) -> list[list[int]]:
        """The sides of the game: ``teams`` when it has partnerships, else one side per seat."""
        return [list(t) for t in self.teams] if self.teams else [[s] for s in range(self.num_players)]

    def outcome(self, returns: np.ndarray) -> np.ndarray:
        """Win, draw or loss of each seat from its episode return.

        Args:
            returns: ``float[..., P]`` each seat's return over an episode (the sum of its rewards).

        Returns:
            ``int8[..., P]``: ``+1`` win, ``0`` draw, ``-1`` loss; partners get their side's outcome.
            ``ValueError`` for returns whose last axis is not ``P`` (:meth:`check_returns`).

        Default (every game with partnerships, and any game of two sides): a side's return is
        the mean of its seats'; the side wins when its return is strictly above every other
        side's, draws when it is tied for the top, and loses otherwise. So with two sides an equal
        score is a draw. The returns are all it sees: a truncated episode (a safety cap such as
        ``max_hands`` or ``max_deals``) keeps the points of the hands or deals it played (under
        ``reward="point_diff"``, or a match's running score), so it is not a draw here; callers that
        count a cut-off game as a draw check ``state.truncated`` themselves (the arena does,
        ``training/ARENA.md``). A game whose result is not "highest return wins" overrides this
        (P'yanitsa: safe / draw / loser).
        """
        r = self.check_returns(returns)
        sides = self.sides()
        side_r = np.stack([r[..., s].mean(axis=-1) for s in sides], axis=-1)
        best = side_r.max(axis=-1, keepdims=True)
        n_best = (side_r == best).sum(axis=-1, keepdims=True)
        side_o = np.where(side_r < best, -1, np.where(n_best == 1, 1, 0)).astype(np.int8)
        out = np.empty(r.shape, dtype=np.int8)
        for i, s in enumerate(sides):
            out[..., s] = side_o[..., i : i + 1]
        return out

    def episode_outcome(self, state: BatchState, returns) -> np.ndarray:
        """Win, draw or loss of each seat in the finished games of ``state`` (the arena's win rate).

        Args:
            state: ``B`` games, each at the end of its episode.
            returns: ``float[B, P]`` each seat's return over that episode.

        Returns:
            ``int8[B, P]`` as :meth:`outcome`, except that a game cut by a safety cap (``truncated``:
            ``max_hands``, ``max_deals``, ``max_battles``, ...) was decided by nobody: a draw for every
            seat (a capped match keeps the points of the hands it played, so :meth:`outcome` would name
            the side ahead on points the winner). A game whose episode winner is not always the side
            with the higher return overrides it (Avinas' match, RULES.md §6.4). ``ValueError`` for
            returns whose shape is not ``(B, P)``."""
        r = self.check_returns(returns)
        if r.shape != (state.batch_size, self.num_players):
            raise ValueError(f"returns must be float[B={state.batch_size}, P={self.num_players}], got shape {r.shape}")
        out = self.outcome(r)
        out[np.asarray(state.truncated, dtype=bool)] = 0
        return out

    def check_returns(self, returns) -> np.ndarray:
        """``returns`` as ``float64[..., P]`` for :meth:`outcome`; ``ValueError`` naming the shape given
        when its last axis is not one return per seat (numbers only)."""
        try:
            r = np.asarray(returns, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"returns must be numbers of shape (..., {self.num_players}), one per seat of {self.name}; got {returns!r}") from None
        if r.ndim == 0 or r.shape[-1] != self.num_players:
            raise ValueError(f"returns must be numbers of shape (..., {self.num_players}), one per seat of {self.name}; got shape {r.shape}")
        return r

    @property
    def null_win_rate(self) -> float:
        """Expected arena win rate of an agent against an equal agent: ``0.5`` in every game.

        The arena's win rate of A is *pairwise*: in each hand A's side is compared with each
        side of B by :meth:`outcome` (better 1, equal 1/2, worse 0), averaged over B's sides.
        With equal agents the seats are exchangeable, so A is better than a given side exactly as
        often as worse: the expectation is 1/2 whatever the number of seats, the draws or the
        objective. (The plain share of hands A *wins* has a game-dependent null: in P'yanitsa
        with ``N`` players and one loser it is ``(N-1)/N`` of the decided games; the arena
        reports that share too, as ``outcome_rates``.)
        """
        return 0.5

    #: names of the kinds of deal :meth:`deal_category` tells apart (empty: the game has one kind)
    DEAL_CATEGORIES: ClassVar[tuple[str, ...]] = ()

    #: the state field counting scored deals, for a game whose rules reveal each deal's result when
    #: it ends (Ottocento §7): in an episode of several deals (a match) the AEC env then sets every
    #: agent's ``infos`` to :meth:`info` at the step a deal is scored, not only at the episode's end.
    #: ``None`` (default): infos at the end of the episode only.
    DEAL_COUNTER: ClassVar[str | None] = None

    @property
    def one_deal_episodes(self) -> bool:
        """``True`` when every episode is one deal (:func:`one_deal_episodes` of the options): then
        :attr:`DEAL_COUNTER` moves only at the episode's end, where the AEC env gives the final infos
        anyway, and it does not watch the counter at every step; PIMC search needs such episodes."""
        return one_deal_episodes(self.options)

    def deal_category(self, state: BatchState) -> np.ndarray | None:
        """``int64[B]`` index into ``DEAL_CATEGORIES`` of each game's current deal (e.g. Avinas'
        sevens and no-sevens games), decided by the deal itself so that evaluations can report
        results per kind of deal; ``None`` (the default) for games with one kind of deal."""
        return None

    # ---- hidden information views (B index ``b``) ----------------------------
    def hands(self, state: BatchState, b: int = 0) -> list[list[int]]:
        """Card ids each seat holds privately in game ``b``, a sorted ``list[int]`` per seat. The
        default reads the state's ``hands`` field (``uint64[B, num_players]``, one card set per
        seat); a game whose state has none (P'yanitsa: nobody holds cards) overrides it.
        ``ValueError`` for a bad ``b``."""
        b = self.check_game(state, b)
        return [mask_to_cards(state.hands[b, s]) for s in range(self.num_players)]

    def known_cards(self, state: BatchState, b: int = 0) -> list[list[int]]:
        """Held cards of each seat that other seats have seen (default: none)."""
        self.check_game(state, b)
        return [[] for _ in range(self.num_players)]

    #: the game's render module (``envs/<game>/render.py``), set by each game's kernel class: its
    #: ``render(kernel, state, b, view)`` and ``table_view(kernel, state, b, seat)`` draw the table
    #: for :meth:`render` and :meth:`table_view`, which check ``b`` and the seat first.
    renderer = None

    def render(self, state: BatchState, b: int = 0, view=None) -> str:
        """Text table of game ``b``: ``view=None`` public only, a seat adds that seat's hand,
        ``"all"`` shows every hand (debugging); what each view shows is the game's ``render(...)``
        in ``envs/<game>/render.py`` (:attr:`renderer`). ``ValueError`` for a bad ``b`` or another view."""
        b = self.check_game(state, b)
        return self._renderer().render(self, state, b, view)

    def table_view(self, state: BatchState, b: int, seat: int) -> dict:
        """What ``seat`` sees at the table in game ``b``, as plain JSON-able data (ints, strs, None,
        lists, dicts) for front ends such as the web table (``training/web``).

        Only what ``seat`` may see (the game's ``RULES.md`` §7 Information): its own hand, public
        cards and facts; never other hands, the talon/stock, face-down cards or another seat's
        private knowledge. Keys (all present; ``None`` / ``[]`` where the game has no such thing):

        * ``hand``: ``list[int]`` card ids (``self.deck``) held by ``seat``, sorted by suit then rank;
        * ``hand_sizes``: ``list[int]`` cards held per seat; ``exposed``: ``list[list[int]]`` per seat,
          held cards that are face up / publicly known;
        * ``trick``: ``[{"seat": int, "card": int | None}]`` the current trick in play order
          (``None`` = face down); ``last_trick``: ``{"cards": [...], "winner": int | None}`` or ``None``;
        * ``to_act``: ``int | None`` (``None`` once the episode is over); ``dealer``: ``int | None``;
          ``phase``: a snake_case key such as ``"play"`` or ``"over"``;
        * ``facts``: ``[{"key": str, "value": str}]`` public facts (card codes as ``self.deck`` names them);
        * ``scores``: ``[{"key": str, "values": list[str]}]`` per team (``teams`` order) or per seat;
        * ``teams``: ``self.teams``;
        * ``summary``: ``None``, or once a deal/hand has been scored ``{"key": str, "lines":
          [{"key": str, "values": list[str]}], "result": str}``, the breakdown the rules define.

        ``seat`` must be in ``[0, num_players)`` and ``b`` a game of ``state`` (``ValueError``
        otherwise). Each game builds the view next to its text renderer: ``table_view(...)`` in
        ``envs/<game>/render.py`` (:attr:`renderer`) documents its facts, scores and summary.
        """
        b = self.check_game(state, b)
        return self._renderer().table_view(self, state, b, self.check_seat(seat))

    def _renderer(self):
        if self.renderer is None:
            raise NotImplementedError(f"{self.name} has no renderer (envs/{self.name}/render.py) for render() and table_view()")
        return self.renderer

    def text_view(self, state: BatchState, b: int, seat: int) -> str:
        """The situation of ``seat`` in game ``b`` as text, for people, protocols and language models.

        Built once here from the game's pieces: the game's own seat render (:meth:`render` with
        ``view=seat``: its hand, the trick, trump or contract, scores, what was declared or
        signalled), then who is to act and, when ``seat`` is to act, its legal actions by name
        (:meth:`action_name`). Shows only what ``seat`` may know (``RULES.md`` §7): it does not
        change when cards hidden from ``seat`` are permuted. ``ValueError`` for a bad ``b`` or seat.
        """
        from .render import view_args

        b, seat = view_args(self, state, b, seat)
        lines = [f"You are S{seat} (player_{seat}) in {self.name}."]
        if self.teams is not None:
            mates = next(t for t in self.teams if seat in t)
            lines[0] += " Your team: " + ", ".join(f"S{s}" for s in mates) + "."
        lines.append(self.render(state, b, view=seat))
        if state.done[b]:
            lines.append("The episode is over.")
        else:
            actor = int(state.current_player[b])
            if actor == seat:
                legal = np.flatnonzero(self.legal_actions(state.take(np.array([b])))[0])
                lines.append("You are to act. Legal actions: " + " ".join(self.action_name(int(a)) for a in legal))
            else:
                lines.append(f"S{actor} is to act.")
        return "\n".join(lines)

    def forfeit_rewards(self, seat: int) -> np.ndarray:
        """``float64[P]`` rewards when ``seat`` forfeits the episode by an illegal action (the AEC
        env's ``illegal_action="lose"``): every seat of the offender's side gets ``-1``, and the other
        seats share ``+1`` per offending seat evenly, so the rewards sum to zero. Two teams of two:
        ``-1`` for the offender and partner, ``+1`` for each opponent; P'yanitsa with ``N`` players:
        ``-1`` for the offender, ``+1/(N-1)`` for each other player."""
        seat = self.check_seat(seat)
        side = next((t for t in self.teams if seat in t), [seat]) if self.teams is not None else [seat]
        out = np.zeros(self.num_players, dtype=np.float64)
        others = [s for s in range(self.num_players) if s not in side]
        out[others] = len(side) / len(others)
        out[list(side)] = -1.0
        return out

    def check_game(self, state: BatchState, b) -> int:
        """``b`` as an int if it indexes a game of ``state`` (``0..B-1``), else ``ValueError`` naming it and
        the valid range (a negative index or a bool is no game index). The views of one game
        (``render``, ``table_view``, ``hands``, ``known_cards``, ``info``) check ``b`` with it."""
        n = state.batch_size
        if is_int(b) and 0 <= b < n:
            return int(b)
        raise ValueError(f"game index b={b!r} is not valid; the state holds games 0..{n - 1}")

    def check_seat(self, seat) -> int:
        """``seat`` as an int if it is a seat of this game, else ``ValueError`` naming the valid seats."""
        if is_int(seat) and 0 <= seat < self.num_players:
            return int(seat)
        raise ValueError(f"seat {seat!r} is not valid for {self.name}; valid seats: 0..{self.num_players - 1}")

    def check_seats(self, B: int, seat) -> np.ndarray:
        """``seat`` (an int, or ints of shape ``[B]``: one per game) as ``int64[B]``; ``ValueError`` naming
        the value and the valid seats for what is not an int seat of this game (a bool, a float, a
        string, another shape). The seat check of :meth:`observe` and :meth:`determinize`."""
        try:
            seats = np.broadcast_to(np.asarray(seat), (B,))
        except ValueError:
            raise ValueError(f"seat must be an int or int[{B}] (one per game), got shape {np.shape(seat)}") from None
        n = int(self.num_players)
        if seats.dtype.kind not in "iu" or (B and (seats.min() < 0 or seats.max() >= n)):
            raise ValueError(f"seat {seat!r} is not valid for {self.name}; seats are ints 0..{n - 1}")
        return seats.astype(np.int64)

    def check_determinize(self, state: BatchState, seat, rng) -> np.ndarray:
        """The checks of :meth:`determinize`: ``seat`` (an int, or ints of shape ``[B]``) as ``int64[B]``.
        ``ValueError`` naming the value and what is valid for a seat that is not an int of this game
        (a bool, a float, a string, another shape) or an ``rng`` that is not a ``numpy.random.Generator``."""
        seats = self.check_seats(state.batch_size, seat)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(0)), got {rng!r}")
        return seats

    def action_is_public(self, state: BatchState, b: int, action: int) -> bool:
        """Whether the other seats see which ``action`` the seat to act in game ``b`` takes now
        (before it is applied). Default True; a game with face-down moves (a discard) returns False,
        and front ends (terminal play, logs shown to a player) then hide the action's name.
        ``ValueError`` for a game index or an action the game does not have (:meth:`check_public_args`)."""
        self.check_public_args(state, b, action)
        return True

    def check_public_args(self, state: BatchState, b, action) -> tuple[int, int]:
        """``(b, action)`` of :meth:`action_is_public` as ints: ``ValueError`` naming a game index out of
        the batch (:meth:`check_game`) or an action that is not an int id of the game (:meth:`action_name`'s
        message). Ottocento's answer for ``b=5`` of a 2-game state was numpy's IndexError, ``b=-1``
        read the last game, and an action of 999 or 1.5 got an answer."""
        b = self.check_game(state, b)
        self.action_name(action)
        return b, int(action)

    def info(self, state: BatchState, b: int = 0) -> dict:
        """Public facts for ``infos`` (never hidden cards); default empty."""
        return {}

    @property
    def max_episode_steps(self) -> int | None:
        """Upper bound of agent steps in one episode under the truncation caps."""
        return None

    def determinize(self, state: BatchState, seat, rng: np.random.Generator) -> BatchState:
        """Optional, for search (e.g. PIMC): a copy of ``state`` in which everything ``seat``
        cannot see (other hands, undealt cards) is redealt at random, consistently with what
        ``seat`` has seen. ``seat`` is an int or ``int[B]``; the result has the same batch size.
        It must read only what ``seat`` may know, so its output (for a given ``rng``) does not
        change when the hidden cards are permuted. Kernels without it raise ``NotImplementedError``.
        Kernels with it raise ``ValueError`` for a bad ``seat`` or ``rng`` (:meth:`check_determinize`)."""
        raise NotImplementedError(f"{self.name} has no determinize(); search agents need it")
