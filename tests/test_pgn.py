"""PGN reading: filters, counted skips, formats, encodings, byte ranges, fuzzing."""

from __future__ import annotations

import bz2
import gzip
import io
import itertools
import random
import zipfile
from pathlib import Path

import chess
import pytest
import zstandard

from chessmoe.games.pgn import (
    PgnFilters,
    PgnGame,
    PgnStreamError,
    SkipCounter,
    game_offsets,
    iter_games,
    plan_pieces,
    split_ranges,
)


def _game(moves: str, result: str = "1-0", **headers: str) -> str:
    tags = {"Event": "test", "White": "A", "Black": "B", "Result": result, **headers}
    head = "\n".join(f'[{k} "{v}"]' for k, v in tags.items())
    return f"{head}\n\n{moves}\n\n"


GOOD = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5"
GOOD_PLIES = 12

CASES = {
    "kept": _game(f"{GOOD} 1-0"),
    "too_short": _game("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 1-0"),
    "unfinished": _game(f"{GOOD} *", result="*"),
    "variant": _game(f"{GOOD} 1-0", Variant="Crazyhouse"),
    "chess960": _game("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. d3 d6 1-0",
                      FEN="bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
                      SetUp="1"),
    "bad_fen": _game(f"{GOOD} 1-0", FEN="not/a/fen", SetUp="1"),
    "illegal_move": _game("1. e4 e5 2. Nf3 Nc6 3. Ke3 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 1-0"),
    "result_mismatch": _game(f"{GOOD} 0-1"),
    "kept_with_variations": _game(
        "1. e4 {best by test} e5 (1... c5 2. Nf3 d6) 2. Nf3 Nc6 $1 3. Bb5 a6 4. Ba4 Nf6 "
        "5. O-O Be7 (5... b5 6. Bb3) 6. Re1 b5 1-0"),
}


def _write(tmp_path: Path, text: str, name: str = "games.pgn",
           encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_filters_count_every_skip_by_reason(tmp_path: Path) -> None:
    path = _write(tmp_path, "".join(CASES.values()))
    skips = SkipCounter()
    games = list(iter_games(path, skips=skips))
    assert len(games) == 2
    assert all(g.plies == GOOD_PLIES for g in games)
    assert skips.kept == 2 and skips.seen == len(CASES)
    assert dict(skips.skipped) == {"too_short": 1, "unfinished": 1, "variant": 2,
                                   "bad_fen": 1, "illegal_move": 1, "result_mismatch": 1}
    assert "Ke3" in skips.examples["illegal_move"][0] or "illegal" in \
        skips.examples["illegal_move"][0]
    assert skips.examples["bad_fen"][0].startswith("games.pgn@")
    report = skips.report()
    assert "kept 2" in report and "illegal_move" in report


def test_min_full_moves_boundary(tmp_path: Path) -> None:
    nine = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O 1-0"
    ten = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0"
    path = _write(tmp_path, _game(nine) + _game(ten))
    assert [g.plies for g in iter_games(path)] == [10]
    assert [g.plies for g in iter_games(path, filters=PgnFilters(min_full_moves=4))] == [9, 10]


def test_truncated_file_counts_missing_termination(tmp_path: Path) -> None:
    text = CASES["kept"] + CASES["kept"]
    path = _write(tmp_path, text[: len(text) - 12])  # cut inside the last movetext
    skips = SkipCounter()
    assert len(list(iter_games(path, skips=skips))) == 1
    assert skips.skipped == {"missing_termination": 1}


def test_extract_sees_start_and_every_move(tmp_path: Path) -> None:
    path = _write(tmp_path, CASES["kept_with_variations"])
    (game,) = list(iter_games(path, extract=lambda b: b.fen()))
    assert isinstance(game, PgnGame)
    assert len(game.boards) == game.plies + 1 == GOOD_PLIES + 1
    assert game.boards[0] == chess.STARTING_FEN
    replay = chess.Board()
    for move, fen in zip(game.moves, game.boards[1:], strict=True):
        replay.push(move)
        assert replay.fen() == fen
    assert game.moves[0] == chess.Move.from_uci("e2e4")
    assert game.result == "1-0"


def test_latin1_headers_read_correctly(tmp_path: Path) -> None:
    path = _write(tmp_path, _game(f"{GOOD} 1-0", White="Müller, Jürgen", Site="Besançon"),
                  encoding="latin-1")
    skips = SkipCounter()
    (game,) = list(iter_games(path, skips=skips))
    assert game.headers["White"] == "Müller, Jürgen"
    assert game.headers["Site"] == "Besançon"
    assert skips.latin1_lines == 2


def test_every_compression_and_zip_gives_the_same_games(tmp_path: Path) -> None:
    text = "".join(CASES.values()).encode()
    expected = [g.moves for g in iter_games(_write(tmp_path, text.decode()))]
    (tmp_path / "g.pgn.gz").write_bytes(gzip.compress(text))
    (tmp_path / "g.pgn.bz2").write_bytes(bz2.compress(text))
    (tmp_path / "g.pgn.zst").write_bytes(zstandard.ZstdCompressor().compress(text))
    with zipfile.ZipFile(tmp_path / "g.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("b.pgn", text)
        archive.writestr("a.pgn", text)
        archive.writestr("readme.txt", "not a pgn")
    for name in ("g.pgn.gz", "g.pgn.bz2", "g.pgn.zst"):
        assert [g.moves for g in iter_games(tmp_path / name)] == expected
    zipped = list(iter_games(tmp_path / "g.zip"))
    assert [g.moves for g in zipped] == expected * 2
    assert zipped[0].source == "g.zip/a.pgn" and zipped[-1].source == "g.zip/b.pgn"
    only_b = list(iter_games(tmp_path / "g.zip", member="b.pgn"))
    assert [g.source for g in only_b] == ["g.zip/b.pgn"] * 2


def test_corrupt_compressed_stream_is_counted_not_fatal(tmp_path: Path) -> None:
    text = ("".join(CASES["kept"] for _ in range(400))).encode()
    data = gzip.compress(text)
    path = tmp_path / "broken.pgn.gz"
    path.write_bytes(data[: len(data) // 2])
    skips = SkipCounter()
    games = list(iter_games(path, skips=skips))
    assert 0 < len(games) < 400
    assert skips.skipped["stream_error"] == 1
    assert "broken.pgn.gz@" in skips.examples["stream_error"][0]


def test_missing_and_unreadable_sources_raise_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(PgnStreamError, match="does not exist"):
        list(iter_games(tmp_path / "nope.pgn"))
    (tmp_path / "fake.zip").write_bytes(b"PK not really")
    with pytest.raises(PgnStreamError, match="not a readable zip"):
        list(iter_games(tmp_path / "fake.zip"))


def test_fuzzed_input_never_raises(tmp_path: Path) -> None:
    base = "".join(CASES.values()).encode()
    rng = random.Random(2024)
    alphabet = b"[]{}()\"\n 0123456789abcdefghKQRBNxO-+#=*/;%$!?.\xe9\xff"
    for trial in range(150):
        data = bytearray(base)
        for _ in range(rng.randint(1, 40)):
            action = rng.random()
            pos = rng.randrange(len(data))
            if action < 0.4:
                data[pos] = rng.choice(alphabet)
            elif action < 0.7:
                del data[pos:pos + rng.randint(1, 30)]
            else:
                data[pos:pos] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 10)))
        path = tmp_path / f"fuzz{trial}.pgn"
        path.write_bytes(bytes(data))
        skips = SkipCounter()
        kept = list(iter_games(path, skips=skips, extract=lambda b: b.occupied))
        assert skips.kept == len(kept)
        for game in kept:
            assert len(game.boards) == game.plies + 1 >= 10


def test_byte_ranges_partition_the_games(tmp_path: Path) -> None:
    rng = random.Random(1)
    text = "".join(rng.choice(list(CASES.values())) for _ in range(300))
    path = _write(tmp_path, "\n\n" + text)  # leading blank lines
    whole = [g.offset for g in iter_games(path)]
    for parts in (1, 2, 3, 7, 50):
        ranges = split_ranges(path, parts)
        assert ranges[0][0] == 0 and ranges[-1][1] is None
        assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
        pieces = [g.offset for r in ranges for g in iter_games(path, byte_range=r)]
        assert pieces == whole
    offsets = list(game_offsets(path))
    assert len(offsets) == 300 and offsets == sorted(offsets)


def test_plan_pieces_cuts_four_ranges_per_worker_by_default(tmp_path: Path) -> None:
    rng = random.Random(2)
    path = _write(tmp_path, "".join(rng.choice(list(CASES.values())) for _ in range(300)))
    assert len(plan_pieces([path])) == 1
    assert len(plan_pieces([path], workers=1)) == 1
    assert len(plan_pieces([path], workers=2)) == 8
    assert len(plan_pieces([path], 3, workers=2)) == 3  # an explicit count wins
    assert len(plan_pieces([path], workers=2, whole=True)) == 1


def test_byte_ranges_need_a_plain_file(tmp_path: Path) -> None:
    path = tmp_path / "g.pgn.gz"
    path.write_bytes(gzip.compress(CASES["kept"].encode()))
    with pytest.raises(PgnStreamError, match="uncompressed"):
        list(iter_games(path, byte_range=(0, None)))


def test_reading_is_lazy_and_streams(tmp_path: Path) -> None:
    class CountingStream(io.RawIOBase):
        def __init__(self, games: int) -> None:
            self.block = CASES["kept"].encode()
            self.left = games
            self.served = 0
            self.buffer = b""

        def readable(self) -> bool:
            return True

        def readinto(self, target: bytearray) -> int:  # type: ignore[override]
            while len(self.buffer) < len(target) and self.left:
                self.buffer += self.block
                self.left -= 1
            n = min(len(target), len(self.buffer))
            target[:n] = self.buffer[:n]
            self.buffer = self.buffer[n:]
            self.served += n
            return n

    from chessmoe.games import pgn

    raw = CountingStream(games=200_000)  # about 40 MB if read whole
    stream = io.BufferedReader(raw, buffer_size=8192)
    iterator = pgn._iter_stream("s", stream, 0, None, PgnFilters(), SkipCounter(), None, None)
    first = next(iterator)
    assert first.plies == GOOD_PLIES
    assert raw.served < 64 * 1024


@pytest.mark.slow
@pytest.mark.shared_data
def test_lichess_excerpt_counts(lichess_excerpt: Path) -> None:
    skips = SkipCounter()
    plies = sum(g.plies for g in iter_games(lichess_excerpt, skips=skips))
    assert skips.seen == 5000
    assert skips.kept == 4885
    assert dict(skips.skipped) == {"too_short": 115}
    assert plies == 326_898


def test_unterminated_comment_ends_at_the_next_game_for_any_worker_count(
        tmp_path: Path) -> None:
    good = CASES["kept"]
    broken = good.replace("1. e4", "1. e4 {never closed", 1)
    path = _write(tmp_path, good * 30 + broken + good * 200)
    for parts in (1, 2, 5):
        skips = SkipCounter()
        kept = [g for r in split_ranges(path, parts) for g in iter_games(path, skips=skips,
                                                                          byte_range=r)]
        assert len(kept) == 230
        assert dict(skips.skipped) == {"unterminated": 1}
        assert f"games.pgn@{len(good.encode()) * 30}" in skips.examples["unterminated"][0]


def test_headers_without_moves_are_their_own_counted_skip(tmp_path: Path) -> None:
    cut = '[Event "cut"]\n[Result "1-0"]\n\n'
    skips = SkipCounter()
    kept = list(iter_games(_write(tmp_path, CASES["kept"] + cut + CASES["kept"]), skips=skips))
    assert len(kept) == 2 and dict(skips.skipped) == {"headers_only": 1}


def test_misnamed_compressed_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "really.pgn"
    path.write_bytes(gzip.compress(CASES["kept"].encode()))
    with pytest.raises(PgnStreamError, match=r"really.pgn holds .gz compressed data.*rename"):
        list(iter_games(path))


def test_gzip_with_trailing_garbage_keeps_its_game(tmp_path: Path) -> None:
    path = tmp_path / "g.pgn.gz"
    path.write_bytes(gzip.compress(CASES["kept"].encode()) + b"trailing garbage")
    skips = SkipCounter()
    assert len(list(iter_games(path, skips=skips))) == 1
    assert skips.skipped["stream_error"] == 1 and skips.examples["stream_error"][0].startswith(
        f"g.pgn.gz@{len(CASES['kept'].encode())}")


def test_fen_move_number_99999_is_kept_exactly(tmp_path: Path) -> None:
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999"
    path = _write(tmp_path, _game(f"{GOOD} 1-0", FEN=fen, SetUp="1")
                  + _game(f"{GOOD} 1-0", FEN=fen.replace("99999", "2000000000"), SetUp="1"))
    skips = SkipCounter()
    games = list(iter_games(path, skips=skips, extract=lambda b: b.fullmove_number))
    assert [g.boards[0] for g in games] == [99999] and games[0].boards[-1] == 99999 + 6
    assert dict(skips.skipped) == {"bad_fen": 1}


def test_written_pgn_files_concatenate(tmp_path: Path) -> None:
    from chessmoe.play.match import write_pgn
    from chessmoe.records import GameRecord

    board = chess.Board()
    record = GameRecord(white="a", black="b", fen=board.fen(), result="0-1",
                        termination="checkmate", detail="",
                        moves=("f2f3", "e7e5", "g2g4", "d8h4"), scores_white=(0, 0),
                        scores_black=(0, 0), seconds=0.0)
    first = write_pgn([record], tmp_path / "a.pgn").read_bytes()
    assert first.endswith(b"0-1\n\n")
    path = tmp_path / "both.pgn"
    path.write_bytes(first + first)
    games = list(iter_games(path, filters=PgnFilters(min_full_moves=1)))
    assert len(games) == 2


def test_probe_positions_play_halfway_into_the_kept_games(tmp_path: Path) -> None:
    import chess

    from chessmoe.games.pgn import probe_positions

    head = '[Result "{r}"]\n[Termination "Normal"]\n\n'
    long_game = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5"
    pgn = tmp_path / "g.pgn"
    pgn.write_text(head.format(r="1-0") + long_game + " 1-0\n\n"
                   + head.format(r="1/2-1/2") + long_game + " 1/2-1/2\n\n"
                   + head.format(r="0-1") + "1. f3 e5 2. g4 Qh4# 0-1\n\n")
    boards = probe_positions(pgn, 5, plies=20)
    expected = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]:  # half of its 12 plies
        expected.push_san(san)
    # both 12-ply games (a draw is decided too), not the 4-ply mate (too short to keep)
    assert [b.fen() for b in boards] == [expected.fen()] * 2
    assert len(probe_positions(pgn, 1)) == 1
    assert probe_positions(pgn, 5, plies=2)[0].fen() == (
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")


def test_standard_only_false_keeps_variants(tmp_path: Path) -> None:
    """Relaxing the filter keeps a Variant-tagged game and a Chess960 start position (with
    their plies); the default skips both as ``variant``."""
    chess960 = _game("1. e4 e5 2. Ng3 Ng6 3. Nd3 Nd6 4. f3 f6 5. c3 c6 1-0", SetUp="1",
                     FEN="bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1")
    text = CASES["kept"] + CASES["variant"] + chess960 + _game(f"{GOOD} 1-0", Variant="Chess960")
    path = _write(tmp_path, text)
    relaxed = SkipCounter()
    games = list(iter_games(path, filters=PgnFilters(standard_only=False), skips=relaxed))
    assert relaxed.kept == 4 and not relaxed.skipped
    assert [g.plies for g in games] == [GOOD_PLIES, GOOD_PLIES, 10, GOOD_PLIES]
    assert [g.headers.get("Variant") for g in games] == [None, "Crazyhouse", None, "Chess960"]
    strict = SkipCounter()
    assert len(list(iter_games(path, skips=strict))) == 1
    assert dict(strict.skipped) == {"variant": 3}
