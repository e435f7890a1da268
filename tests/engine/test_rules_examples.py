"""Every worked example of RULES.md and the source texts in ``seeds/``, as tests.

Every expected number here is derived by hand from the rules (the derivation is written next to it); none is
computed with the engine under test.
"""

from __future__ import annotations

import pytest

from luz.engine import (
    EDITIONS,
    Bid,
    Card,
    Edition,
    Game,
    IllegalAction,
    Phase,
    Play,
    ScoreSheet,
    TieBreak,
    UnsupportedPlayerCount,
    get_edition,
    trick_winner,
)
from support.reference import COLOURS, CONFIGS, DEALS, LETTERS, ref_deck, snapshot

K2014 = get_edition("korokorodou-2014")
IELLO = get_edition("iello-2024")
STD = get_edition("standard-deck")

# Colour indices in each edition's hand order (RULES.md, assumption A3 for 2014).
B14, O14, G14, R14, W14 = range(5)  # korokorodou-2014: blue, orange, green, red, white (trump)
RED, GRN, BLU, PUR, YEL = range(5)  # iello-2024: red, green, blue, purple, yellow (trump)
CLUBS, DIAMONDS, SPADES, HEARTS = range(4)  # standard-deck: hearts are trump


def build_deal(
    key: str, players: int, fixed: dict[int, list[Card]], void: dict[int, set[int]] | None = None
) -> tuple[list[list[Card]], list[Card]]:
    """Hands of 10 (sorted) holding the ``fixed`` cards, with no card of a ``void`` colour; the rest aside."""
    void = void or {}
    used = {c for cards in fixed.values() for c in cards}
    assert len(used) == sum(len(cards) for cards in fixed.values()), "a fixed card is given twice"
    rest = [c for c in ref_deck(key, players) if c not in used]
    hands: dict[int, list[Card]] = {}
    # Seats with voids pick first, so that the constraint can always be met.
    for seat in sorted(range(players), key=lambda s: (not void.get(s), s)):
        hand = list(fixed.get(seat, []))
        assert not any(c.colour in void.get(seat, set()) for c in hand)
        for card in list(rest):
            if len(hand) == 10:
                break
            if card.colour not in void.get(seat, set()):
                hand.append(card)
                rest.remove(card)
        assert len(hand) == 10
        hands[seat] = sorted(hand)
    return [hands[s] for s in range(players)], rest


def slot_of(hand: list[Card], card: Card) -> int:
    return sorted(hand).index(card)


def explicit_game(edition: Edition, players: int, first: int, hands: list[list[Card]], aside: list[Card]) -> Game:
    game = Game(edition, players, edition.options(players, first_player=first), seed=None)
    assert game.phase is Phase.DEAL
    game.deal(hands, aside)
    return game


# -- scoring examples -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("deal_number", [1, 2, 3, 4, 5, 6])
def test_2014_scoring_examples(deal_number: int) -> None:
    options = K2014.options(3)
    # "Expectation: 2+1 tricks (AND 1 used). Result: 3 tricks won. Score: +20 pts"
    assert K2014.score(2, True, 3, deal_number, options) == 20
    # "Expectation: 2 tricks (AND 1 not used). Result: 1 trick won. Score: -10 pts"
    assert K2014.score(2, False, 1, deal_number, options) == -10
    # "Expectation: 0+1 tricks (AND 1 used). Result: 3 tricks won. Score: -20 pts": min(|3-0|, |3-1|) = 2 -> -20
    assert K2014.score(0, True, 3, deal_number, options) == -20
    # A made bet is a flat +40 in every deal, +20 with the AND 1 token even when the exact bid is made.
    assert K2014.score(2, False, 2, deal_number, options) == 40
    assert K2014.score(2, True, 2, deal_number, options) == 20
    assert K2014.score(0, False, 0, deal_number, options) == 40
    # Without the token the difference is counted from the bid: bid 2, 3 tricks -> -10; bid 5, 1 trick -> -40.
    assert K2014.score(2, False, 3, deal_number, options) == -10
    assert K2014.score(5, False, 1, deal_number, options) == -40
    # With the token, to the player's advantage: bid 5+1 and 1 trick -> min(4, 5) = 4 -> -40;
    # bid 2+1 and 6 tricks -> min(4, 3) = 3 -> -30.
    assert K2014.score(5, True, 1, deal_number, options) == -40
    assert K2014.score(2, True, 6, deal_number, options) == -30


@pytest.mark.parametrize("players", [3, 4])
def test_2014_made_points_do_not_depend_on_the_deal(players: int) -> None:
    options = K2014.options(players)
    deals = DEALS["korokorodou-2014", players]
    assert [K2014.score(4, False, 4, d, options) for d in range(1, deals + 1)] == [40] * deals
    assert [K2014.score(4, True, 5, d, options) for d in range(1, deals + 1)] == [20] * deals


@pytest.mark.parametrize("players", [3, 4, 5])
def test_iello_scoring_examples(players: int) -> None:
    options = IELLO.options(players)
    for d in (1, 2, 3, 4):
        # "un pari de 2 billes marron et une bille bleue ... remporte 4 plis, il perd alors 10 points. (4-2) * 5"
        assert IELLO.score(2, True, 4, d, options) == -10
        # FAQ: "avec trois jaunes et une bleue ... six plis ... soit moins quinze points"
        assert IELLO.score(3, True, 6, d, options) == -15
        # FAQ: "Une bille bleue seule permet de réussir avec zéro ou un pli" (half of 10 x deal number)
        assert IELLO.score(0, True, 0, d, options) == 5 * d
        assert IELLO.score(0, True, 1, d, options) == 5 * d
        # ... and 2 tricks is a miss by 2 from zero beads: -10.
        assert IELLO.score(0, True, 2, d, options) == -10
        # Missing below the bid: bid 4, 1 trick -> 3 x -5 = -15, safety or not.
        assert IELLO.score(4, False, 1, d, options) == -15
        assert IELLO.score(4, True, 1, d, options) == -15
    # Made: 10/20/30/40 by deal, half with the safety bead (5/10/15/20).
    assert [IELLO.score(3, False, 3, d, options) for d in (1, 2, 3, 4)] == [10, 20, 30, 40]
    assert [IELLO.score(3, True, 3, d, options) for d in (1, 2, 3, 4)] == [5, 10, 15, 20]
    assert [IELLO.score(3, True, 4, d, options) for d in (1, 2, 3, 4)] == [5, 10, 15, 20]


@pytest.mark.parametrize("players", [3, 4])
def test_standard_deck_scoring_examples(players: int) -> None:
    options = STD.options(players)
    for d in (1, 2, 3, 4):
        # "With a bet of 3 and a safety, taking 6 tricks scores -3."
        assert STD.score(3, True, 6, d, options) == -3
        assert STD.score(3, False, 6, d, options) == -3
        assert STD.score(5, True, 2, d, options) == -3
    # Assumption A1: IELLO's table divided by 5: 2/4/6/8, and 1/2/3/4 with a safety.
    assert [STD.score(2, False, 2, d, options) for d in (1, 2, 3, 4)] == [2, 4, 6, 8]
    assert [STD.score(2, True, 2, d, options) for d in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert [STD.score(2, True, 3, d, options) for d in (1, 2, 3, 4)] == [1, 2, 3, 4]


# -- trick examples ---------------------------------------------------------------------------------------------


def test_2014_trick_example_off_colour_cannot_win() -> None:
    # Leader blue 5; a player with no blue plays orange 10; blue 7 wins over the leader's blue 5 and a blue 2.
    plays = [(0, Card(B14, 5)), (1, Card(O14, 10)), (2, Card(B14, 7)), (3, Card(B14, 2))]
    assert trick_winner(plays, K2014.trump) == 2
    # Seat numbers do not matter, only the order of play.
    rotated = [(2, Card(B14, 5)), (3, Card(O14, 10)), (0, Card(B14, 7)), (1, Card(B14, 2))]
    assert trick_winner(rotated, K2014.trump) == 0


def test_2014_trick_example_low_trump_wins() -> None:
    # Green 8 led, green 7 cannot beat it, white 4 (trump) wins.
    assert trick_winner([(0, Card(G14, 8)), (1, Card(G14, 7)), (2, Card(W14, 4))], K2014.trump) == 2
    # The same with a fourth player following green below the leader.
    assert trick_winner([(1, Card(G14, 8)), (2, Card(G14, 7)), (3, Card(W14, 4)), (0, Card(G14, 1))], 4) == 3


def test_trick_winner_more_cases() -> None:
    assert K2014.trump == W14 and IELLO.trump == YEL and STD.trump == HEARTS
    # The leader's card wins when nobody follows higher and nobody trumps.
    assert trick_winner([(0, Card(B14, 3)), (1, Card(O14, 8)), (2, Card(R14, 8))], W14) == 0
    # Highest trump wins among several trumps, whatever was led.
    assert trick_winner([(0, Card(B14, 8)), (1, Card(W14, 2)), (2, Card(W14, 6)), (3, Card(W14, 5))], W14) == 2
    # Trump led: only higher trumps beat it.
    assert trick_winner([(0, Card(YEL, 3)), (1, Card(RED, 12)), (2, Card(YEL, 2))], YEL) == 0
    assert trick_winner([(0, Card(YEL, 3)), (1, Card(YEL, 11)), (2, Card(YEL, 2))], YEL) == 1
    # An off-colour card played after a trump does not take the lead back.
    assert trick_winner([(0, Card(CLUBS, 14)), (1, Card(HEARTS, 2)), (2, Card(CLUBS, 13))], HEARTS) == 1
    # A later led-colour card still beats the leader after an off-colour discard.
    assert trick_winner([(0, Card(CLUBS, 5)), (1, Card(DIAMONDS, 14)), (2, Card(CLUBS, 6))], HEARTS) == 2


def test_2014_trick_example_off_colour_in_a_real_game() -> None:
    # 4 players, first player seat 2: seats play 2, 3, 0, 1.
    # Seat 2 leads blue 5, seat 3 (no blue) plays orange 10, seat 0 blue 7, seat 1 blue 2: seat 0 wins.
    fixed = {
        2: [Card(B14, 5)],
        3: [Card(O14, 10)],
        0: [Card(B14, 7)],
        1: [Card(B14, 2), Card(R14, 1)],
    }
    hands, aside = build_deal("korokorodou-2014", 4, fixed, void={3: {B14}})
    game = explicit_game(K2014, 4, 2, hands, aside)
    assert game.current_player == 2
    for seat in (2, 3, 0, 1):
        game.apply(Bid(1), seat=seat)
    assert game.phase is Phase.PLAY and game.current_player == 2
    game.apply(Play(slot_of(hands[2], Card(B14, 5))), seat=2)
    # Seat 3 holds no blue: legal to play anything, here a non-trump off-colour card.
    assert len(game.legal_actions()) == 10
    game.apply(Play(slot_of(hands[3], Card(O14, 10))), seat=3)
    game.apply(Play(slot_of(hands[0], Card(B14, 7))), seat=0)
    # Seat 1 holds blue, so it must follow: its red 1 is refused and the game does not change.
    before = snapshot(game)
    with pytest.raises(IllegalAction):
        game.apply(Play(slot_of(hands[1], Card(R14, 1))), seat=1)
    assert snapshot(game) == before
    blue_slots = [slot for slot, card in enumerate(hands[1]) if card.colour == B14]
    assert sorted(a.slot for a in game.legal_actions()) == blue_slots
    game.apply(Play(slot_of(hands[1], Card(B14, 2))), seat=1)
    trick = game.completed_tricks[-1]
    assert trick.winner == 0
    assert [(seat, card) for seat, _, card in trick.plays] == [
        (2, Card(B14, 5)),
        (3, Card(O14, 10)),
        (0, Card(B14, 7)),
        (1, Card(B14, 2)),
    ]
    assert game.tricks_won == (1, 0, 0, 0)
    assert game.current_player == 0  # the winner leads the next trick


def test_2014_trick_example_low_trump_in_a_real_game() -> None:
    # 3 players (values 1-8), first player seat 1: green 8 led, seat 2 green 7, seat 0 (no green) white 4 wins.
    fixed = {1: [Card(G14, 8)], 2: [Card(G14, 7)], 0: [Card(W14, 4), Card(B14, 1)]}
    hands, aside = build_deal("korokorodou-2014", 3, fixed, void={0: {G14}})
    game = explicit_game(K2014, 3, 1, hands, aside)
    for seat in (1, 2, 0):
        game.apply(Bid(0, safety=True), seat=seat)
    game.apply(Play(slot_of(hands[1], Card(G14, 8))), seat=1)
    game.apply(Play(slot_of(hands[2], Card(G14, 7))), seat=2)
    assert len(game.legal_actions()) == 10  # void in green: anything goes
    game.apply(Play(slot_of(hands[0], Card(W14, 4))), seat=0)
    assert game.completed_tricks[-1].winner == 0
    assert game.tricks_won == (1, 0, 0)
    assert game.current_player == 0


def test_void_player_need_not_trump() -> None:
    # IELLO FAQ: "Faut-il couper quand on ne peut pas fournir la couleur ? Non." (and trumping is allowed).
    fixed = {
        0: [Card(RED, 8), Card(RED, 1)],
        1: [Card(YEL, 1), Card(GRN, 3)],
        2: [Card(RED, 2), Card(RED, 3)],
        3: [Card(RED, 9), Card(RED, 10)],
    }
    hands, aside = build_deal("iello-2024", 4, fixed, void={1: {RED}})
    game = explicit_game(IELLO, 4, 0, hands, aside)
    for _ in range(4):
        game.apply(Bid(2))
    game.apply(Play(slot_of(hands[0], Card(RED, 8))), seat=0)
    # Seat 1 has no red: every slot is legal, trump or not; it discards green 3.
    assert sorted(a.slot for a in game.legal_actions()) == list(range(10))
    game.apply(Play(slot_of(hands[1], Card(GRN, 3))), seat=1)
    game.apply(Play(slot_of(hands[2], Card(RED, 2))), seat=2)
    game.apply(Play(slot_of(hands[3], Card(RED, 9))), seat=3)
    assert game.completed_tricks[-1].winner == 3  # red 9 is the highest red, no trump played
    # Seat 3 leads red 10; seat 0 follows with red 1; seat 1 (still void) trumps with yellow 1; seat 2 red 3.
    game.apply(Play(slot_of(hands[3], Card(RED, 10))), seat=3)
    game.apply(Play(slot_of(hands[0], Card(RED, 1))), seat=0)
    game.apply(Play(slot_of(hands[1], Card(YEL, 1))), seat=1)
    game.apply(Play(slot_of(hands[2], Card(RED, 3))), seat=2)
    assert game.completed_tricks[-1].winner == 1
    assert game.tricks_won == (0, 1, 0, 1)
    assert game.current_player == 1


def test_follow_suit_is_decided_by_colour_only() -> None:
    # Seat 1 holds green: only its green slots are legal, and each other slot is refused.
    fixed = {0: [Card(GRN, 5)], 1: [Card(GRN, 1), Card(GRN, 2), Card(YEL, 12), Card(RED, 1)]}
    hands, aside = build_deal("iello-2024", 5, fixed)
    game = explicit_game(IELLO, 5, 0, hands, aside)
    for _ in range(5):
        game.apply(Bid(1))
    game.apply(Play(slot_of(hands[0], Card(GRN, 5))))
    green = [s for s, c in enumerate(hands[1]) if c.colour == GRN]
    assert sorted(a.slot for a in game.legal_actions()) == green
    for slot in range(10):
        if slot not in green:
            before = snapshot(game)
            with pytest.raises(IllegalAction):
                game.apply(Play(slot))
            assert snapshot(game) == before
    game.apply(Play(green[-1]))
    assert game.current_player == 2


# -- decks, deals, player counts --------------------------------------------------------------------------------

DECKS = [
    ("korokorodou-2014", 3, 40, 1, 8, 10),
    ("korokorodou-2014", 4, 50, 1, 10, 10),
    ("iello-2024", 3, 40, 1, 8, 10),
    ("iello-2024", 4, 50, 1, 10, 10),
    ("iello-2024", 5, 60, 1, 12, 10),
    ("standard-deck", 3, 40, 5, 14, 10),
    ("standard-deck", 4, 52, 2, 14, 12),
]


@pytest.mark.parametrize(("key", "players", "size", "low", "high", "aside"), DECKS)
def test_deck_composition(key: str, players: int, size: int, low: int, high: int, aside: int) -> None:
    edition = get_edition(key)
    deck = edition.deck(players)
    colours = COLOURS[key]
    assert len(deck) == size == len(set(deck))
    assert edition.deck_size(players) == size
    assert edition.aside_size(players) == aside
    assert {c.colour for c in deck} == set(range(colours))
    for colour in range(colours):
        assert sorted(c.value for c in deck if c.colour == colour) == list(range(low, high + 1))
    # A real deal: 10 cards each, the rest aside, together exactly the deck.
    game = Game.new(key, players, seed=2024)
    dealt = game.deals[0]
    assert [len(h) for h in dealt.hands] == [10] * players
    assert len(dealt.aside) == aside
    assert sorted([c for h in dealt.hands for c in h] + list(dealt.aside)) == sorted(deck)


def test_card_names_follow_each_deck() -> None:
    ranks = ["5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    names = {STD.card_name(c) for c in STD.deck(3)}
    suits = LETTERS["standard-deck"]
    assert names == {r + s for r in ranks for s in suits}
    assert {STD.card_name(c) for c in STD.deck(4)} == {r + s for r in ["2", "3", "4", *ranks] for s in suits}
    assert {K2014.card_name(c) for c in K2014.deck(3)} == {f"{s}{v}" for s in LETTERS[K2014.key] for v in range(1, 9)}
    assert {IELLO.card_name(c) for c in IELLO.deck(5)} == {f"{s}{v}" for s in LETTERS[IELLO.key] for v in range(1, 13)}
    # Trumps: white, yellow, hearts.
    assert [c.letter for c in K2014.colours if c.trump] == ["W"]
    assert [c.letter for c in IELLO.colours if c.trump] == ["Y"]
    assert [c.letter for c in STD.colours if c.trump] == ["H"]


def test_the_engine_offers_exactly_the_tables_of_the_rules() -> None:
    assert [(key, players) for key, edition in EDITIONS.items() for players in edition.player_counts] == CONFIGS


@pytest.mark.parametrize(("key", "players", "deals"), [(key, players, DEALS[key, players]) for key, players in CONFIGS])
def test_deal_counts(key: str, players: int, deals: int) -> None:
    edition = get_edition(key)
    assert edition.deals(players) == deals
    game = Game.new(key, players, seed=5)
    assert game.deal_count == deals
    numbers = []
    while game.phase is not Phase.GAME_OVER:
        numbers.append(game.deal_number)
        game.apply(game.legal_actions()[0])
    assert sorted(set(numbers)) == list(range(1, deals + 1))
    assert len(game.results) == deals


@pytest.mark.parametrize(
    ("key", "players"),
    [
        ("korokorodou-2014", 2),
        ("korokorodou-2014", 5),
        ("iello-2024", 2),
        ("iello-2024", 6),
        ("standard-deck", 2),
        ("standard-deck", 5),
        ("iello-2024", 0),
    ],
)
def test_unsupported_player_counts(key: str, players: int) -> None:
    edition = get_edition(key)
    with pytest.raises(UnsupportedPlayerCount):
        Game.new(key, players, seed=1)
    with pytest.raises(UnsupportedPlayerCount):
        Game(edition, players, seed=1)
    with pytest.raises(UnsupportedPlayerCount):
        edition.deck(players)
    with pytest.raises(UnsupportedPlayerCount):
        edition.deals(players)


# -- bids -------------------------------------------------------------------------------------------------------


def bids_of(game: Game) -> list[tuple[int, bool]]:
    return sorted({(a.tricks, a.safety) for a in game.legal_actions() if isinstance(a, Bid)})


def all_bids_upto(n: int) -> list[tuple[int, bool]]:
    return [(t, s) for t in range(n + 1) for s in (False, True)]


def test_iello_bid_cap_limits_a_late_bidder() -> None:
    game = Game.new("iello-2024", 4, seed=3, first_player=1)
    assert game.current_player == 1
    assert bids_of(game) == all_bids_upto(10)  # 15 beads left: any bid 0..10
    game.apply(Bid(5, safety=True))  # the safety bead is not a bet bead: 10 left
    assert game.beads_left == 10
    assert bids_of(game) == all_bids_upto(10)
    game.apply(Bid(4))  # 6 left
    assert bids_of(game) == all_bids_upto(6)
    before = snapshot(game)
    with pytest.raises(IllegalAction):
        game.apply(Bid(7))
    with pytest.raises(IllegalAction):
        game.apply(Bid(7, safety=True))
    assert snapshot(game) == before
    game.apply(Bid(5))  # 1 left for the last bidder
    assert game.current_player == 0
    assert bids_of(game) == [(0, False), (0, True), (1, False), (1, True)]
    for refused in (Bid(2), Bid(10, safety=True)):
        with pytest.raises(IllegalAction):
            game.apply(refused)
    game.apply(Bid(1, safety=True))  # exactly 15 bet beads, plus a safety
    assert game.phase is Phase.PLAY


def test_iello_bid_cap_can_leave_nothing() -> None:
    game = Game.new("iello-2024", 3, seed=8, first_player=0)
    game.apply(Bid(10))
    game.apply(Bid(5))
    assert bids_of(game) == [(0, False), (0, True)]
    with pytest.raises(IllegalAction):
        game.apply(Bid(1))
    game.apply(Bid(0, safety=True))
    assert game.phase is Phase.PLAY


@pytest.mark.parametrize(("key", "players"), [("korokorodou-2014", 3), ("korokorodou-2014", 4), ("standard-deck", 4)])
def test_no_bid_cap_in_other_editions(key: str, players: int) -> None:
    game = Game.new(key, players, seed=4)
    assert game.options.bid_cap is None and game.beads_left is None
    for _ in range(players):
        assert bids_of(game) == all_bids_upto(10)
        game.apply(Bid(10, safety=True))
    assert game.phase is Phase.PLAY


# -- first players ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "players", "first"),
    [
        ("korokorodou-2014", 3, 2),
        ("korokorodou-2014", 4, 1),
        ("iello-2024", 4, 3),
        ("iello-2024", 5, 4),
        ("standard-deck", 4, 2),
        ("iello-2024", 3, 1),
        ("standard-deck", 3, 0),
    ],
)
def test_first_player_moves_left_each_deal(key: str, players: int, first: int) -> None:
    game = Game.new(key, players, seed=9, first_player=first)
    seen: list[int] = []
    while game.phase is not Phase.GAME_OVER:
        if not seen or game.deal_number > len(seen):
            seen.append(game.first_player)
            assert game.current_player == game.first_player  # the first player bids first
        game.apply(game.legal_actions()[0])
    deals = game.deal_count
    expected = [(first + d) % players for d in range(deals)]
    if players == 3 and key != "korokorodou-2014":
        seen, expected = seen[:-1], expected[:-1]  # the last deal follows the leader (tested below)
    assert seen == expected
    assert [r.first_player for r in game.results][: len(expected)] == expected


def sheet_with(edition: Edition, players: int, first: int, deals: list[tuple[tuple, tuple, tuple]]) -> ScoreSheet:
    sheet = ScoreSheet.new(edition, players, first_player=first)
    for bids, safety, tricks in deals:
        sheet = sheet.add(list(bids), list(safety), list(tricks))
    return sheet


NO = (False, False, False)


def test_iello_3p_last_deal_unique_leader_opens() -> None:
    # D1 (10): bids 1,1,8 tricks 0,2,8 -> -5,-5,+10; D2 (20) and D3 (30) all made.
    # Totals 45, 45, 60: seat 2 leads, although the usual first player of deal 4 is (0 + 3) % 3 = 0.
    deals = [((1, 1, 8), NO, (0, 2, 8)), ((3, 3, 4), NO, (3, 3, 4)), ((3, 3, 4), NO, (3, 3, 4))]
    sheet = sheet_with(IELLO, 3, 0, deals)
    assert sheet.totals == (45, 45, 60)
    assert [d.first_player for d in sheet.deals] == [0, 1, 2]
    assert sheet.usual_first_player(3) == 0
    assert sheet.next_first_player() == 2


# All made in D1 (10) and D2 (20); in D3 (30) bids 3,3,3 tricks 3,4,3 -> +30, -5, +30. Totals 60, 25, 60.
TIE_0_2 = [((1, 1, 8), NO, (1, 1, 8)), ((3, 3, 4), NO, (3, 3, 4)), ((3, 3, 3), NO, (3, 4, 3))]


@pytest.mark.parametrize(("first", "expected"), [(2, 2), (0, 0), (1, 2)])
@pytest.mark.parametrize(
    ("edition", "totals"),
    [
        pytest.param(IELLO, (60, 25, 60), id="iello"),
        # The same deals with standard points: +2 all, +4 all, then +6, -1, +6.
        pytest.param(STD, (12, 5, 12), id="standard"),
    ],
)
def test_3p_last_deal_tie_for_the_lead(edition: Edition, totals: tuple[int, ...], first: int, expected: int) -> None:
    # Seats 0 and 2 tie for the lead. Usual first player of deal 4: (first + 3) % 3 = first.
    # first 2 or 0: the usual first player is among the tied, so he opens.
    # first 1: seat 1 is not tied; the tied player nearest after him is seat 2 (not the lower seat 0).
    sheet = sheet_with(edition, 3, first, TIE_0_2)
    assert sheet.totals == totals
    assert sheet.next_first_player() == expected


@pytest.mark.parametrize(("first", "expected"), [(0, 0), (1, 1), (2, 0)])
def test_iello_3p_last_deal_tie_including_usual(first: int, expected: int) -> None:
    # D3 bids 3,3,3 tricks 3,3,4 -> +30, +30, -5: totals 60, 60, 25, seats 0 and 1 tied.
    # first 0: usual 0 tied -> 0; first 1: usual 1 tied -> 1; first 2: usual 2 not tied -> nearest after 2 is 0.
    deals = [((1, 1, 8), NO, (1, 1, 8)), ((3, 3, 4), NO, (3, 3, 4)), ((3, 3, 3), NO, (3, 3, 4))]
    sheet = sheet_with(IELLO, 3, first, deals)
    assert sheet.totals == (60, 60, 25)
    assert sheet.next_first_player() == expected


@pytest.mark.parametrize(("first", "expected"), [(0, 2), (1, 2), (2, 2)])
def test_standard_3p_last_deal_leader_opens(first: int, expected: int) -> None:
    # Standard deck: D1 (2) bids 1,1,8 tricks 0,2,8 -> -1,-1,+2; D2 (4), D3 (6) all made. Totals 9, 9, 12.
    deals = [((1, 1, 8), NO, (0, 2, 8)), ((3, 3, 4), NO, (3, 3, 4)), ((3, 3, 4), NO, (3, 3, 4))]
    sheet = sheet_with(STD, 3, first, deals)
    assert sheet.totals == (9, 9, 12)
    assert sheet.next_first_player() == expected


def test_2014_3p_last_deal_keeps_the_rotation() -> None:
    # D1 bids 1,1,8 tricks 1,2,7 -> +40, -10, -10; D2-D5 all made (+40). Totals 200, 150, 150: seat 0 leads,
    # but 2014 keeps the rotation: deal 6's first player is (0 + 5) % 3 = 2.
    deals = [((1, 1, 8), NO, (1, 2, 7))] + [((1, 1, 8), NO, (1, 1, 8))] * 4
    sheet = sheet_with(K2014, 3, 0, deals)
    assert sheet.totals == (200, 150, 150)
    assert sheet.next_first_player() == 2


def test_4p_last_deal_keeps_the_rotation() -> None:
    # The leader rule is for 3 players only: IELLO 4p, D1 bids 2,2,3,3 tricks 2,3,2,3 -> +10,-5,-5,+10, then made.
    deals = [((2, 2, 3, 3), (False,) * 4, (2, 3, 2, 3))] + [((2, 2, 3, 3), (False,) * 4, (2, 2, 3, 3))] * 2
    sheet = sheet_with(IELLO, 4, 1, deals)
    assert sheet.totals == (60, 45, 45, 60)
    assert sheet.next_first_player() == (1 + 3) % 4


# -- end of game tie-breaks -------------------------------------------------------------------------------------

F4 = (False,) * 4
ALL_MADE_4 = ((2, 2, 3, 3), F4, (2, 2, 3, 3))


def check_outcome(sheet: ScoreSheet, totals: tuple, winner: int, ranking: tuple, decided: TieBreak) -> None:
    assert sheet.is_over
    outcome = sheet.outcome()
    assert outcome is not None
    assert outcome.totals == totals
    assert outcome.winner == winner
    assert outcome.ranking == ranking
    assert outcome.decided_by is decided


def test_2014_tie_break_total() -> None:
    # D1 all made, seats 0, 2, 3 with the AND 1 token: 20, 40, 20, 20; D2-D4 all made: +40. Totals 140,160,140,140.
    # Seats 0, 2, 3 tie for second on total and on the last deal (40); first player 2 -> deal 4 opens with
    # (2 + 3) % 4 = 1, bidding order 1, 2, 3, 0.
    deals = [((2, 2, 3, 3), (True, False, True, True), (2, 2, 3, 3))] + [ALL_MADE_4] * 3
    sheet = sheet_with(K2014, 4, 2, deals)
    check_outcome(sheet, (140, 160, 140, 140), 1, (1, 2, 3, 0), TieBreak.TOTAL)


def test_2014_tie_break_last_deal() -> None:
    # D1 bids 2,2,2,3 tricks 2,2,2,4: +40 +40 +40 -10.   D2 bids 2,2,2,2 tricks 2,2,3,3: +40 +40 -10 -10.
    # D3 bids 2,2,2,2 tricks 2,3,2,3: +40 -10 +40 -10.   D4 bids 2,2,2+,3 tricks 3,2,3,2: -10 +40 +20 -10.
    # Totals 110, 110, 90, -40: seats 0 and 1 tie, seat 1 scored more in the last deal (40 > -10).
    deals = [
        ((2, 2, 2, 3), F4, (2, 2, 2, 4)),
        ((2, 2, 2, 2), F4, (2, 2, 3, 3)),
        ((2, 2, 2, 2), F4, (2, 3, 2, 3)),
        ((2, 2, 2, 3), (False, False, True, False), (3, 2, 3, 2)),
    ]
    sheet = sheet_with(K2014, 4, 0, deals)
    assert sheet.deals[-1].scores == (-10, 40, 20, -10)
    check_outcome(sheet, (110, 110, 90, -40), 1, (1, 0, 2, 3), TieBreak.LAST_DEAL)


def test_2014_tie_break_bidding_order() -> None:
    # D1 bids 2,2,3,3 tricks 2,3,2,3: +40 -10 -10 +40; D2-D4 all made. Totals 160, 110, 110, 160.
    # Seats 0 and 3 tie, both +40 in the last deal. First player 2 -> deal 4 bidding order 1, 2, 3, 0: seat 3.
    deals = [((2, 2, 3, 3), F4, (2, 3, 2, 3))] + [ALL_MADE_4] * 3
    sheet = sheet_with(K2014, 4, 2, deals)
    check_outcome(sheet, (160, 110, 110, 160), 3, (3, 0, 1, 2), TieBreak.SEAT_ORDER)
    assert sheet.outcome().reference_seat == 1


def test_2014_3p_tie_break_bidding_order() -> None:
    # Six deals of bids 0,3,5 tricks 2,3,5: seat 0 misses by 2 (-20), seats 1 and 2 make (+40).
    # Totals -120, 240, 240; last deal's first player (0 + 5) % 3 = 2, so seat 2 bid before seat 1.
    sheet = sheet_with(K2014, 3, 0, [((0, 3, 5), NO, (2, 3, 5))] * 6)
    check_outcome(sheet, (-120, 240, 240), 2, (2, 1, 0), TieBreak.SEAT_ORDER)


@pytest.mark.parametrize(
    ("edition", "totals"),
    [
        # D1 all made, seats 1-3 with a safety: 10, 5, 5, 5; D2-D4 all made: 20, 30, 40. Totals 100, 95, 95, 95.
        pytest.param(IELLO, (100, 95, 95, 95), id="iello"),
        # 2 + 4 + 6 + 8 = 20 for seat 0, 1 + 4 + 6 + 8 = 19 for the others.
        pytest.param(STD, (20, 19, 19, 19), id="standard"),
    ],
)
def test_tie_break_total(edition: Edition, totals: tuple[int, ...]) -> None:
    # First player 3 -> deal 4 first player (3 + 3) % 4 = 2: order 2, 3, 0, 1 for the seats tied behind.
    deals = [((2, 2, 3, 3), (False, True, True, True), (2, 2, 3, 3))] + [ALL_MADE_4] * 3
    sheet = sheet_with(edition, 4, 3, deals)
    check_outcome(sheet, totals, 0, (0, 2, 3, 1), TieBreak.TOTAL)


@pytest.mark.parametrize(
    ("edition", "totals"),
    [
        # seat 0: 2/2 (+10), 2/2 (+20), 3/3 (+30), 0/2 (-10) = 50
        # seat 1: 0/3 (-15), 0/2 (-10), 0/3 (-15), 0/2 (-10) = -50
        # seat 2: 0/3 (-15), 0/3 (-15), 0/3 (-15), 0/3 (-15) = -60
        # seat 3: 2+/2 (+5), 2+/3 (+10), 1+/1 (+15), 2+/3 (+20) = 50
        pytest.param(IELLO, (50, -50, -60, 50), id="iello"),
        # seat 0: +2 +4 +6 -2 = 10; seat 1: -3 -2 -3 -2 = -10; seat 2: -3 -3 -3 -3 = -12; seat 3: +1 +2 +3 +4 = 10.
        pytest.param(STD, (10, -10, -12, 10), id="standard"),
    ],
)
def test_tie_break_last_deal(edition: Edition, totals: tuple[int, ...]) -> None:
    # Seats 0 and 3 tie; seat 3 scored more in the last deal.
    safe3 = (False, False, False, True)
    deals = [
        ((2, 0, 0, 2), safe3, (2, 3, 3, 2)),
        ((2, 0, 0, 2), safe3, (2, 2, 3, 3)),
        ((3, 0, 0, 1), safe3, (3, 3, 3, 1)),
        ((0, 0, 0, 2), safe3, (2, 2, 3, 3)),
    ]
    sheet = sheet_with(edition, 4, 0, deals)
    check_outcome(sheet, totals, 3, (3, 0, 1, 2), TieBreak.LAST_DEAL)


@pytest.mark.parametrize(
    ("edition", "totals"),
    [
        # D1: +10 -5 -5 +10; D2-D4 made: +20 +30 +40. Totals 100, 85, 85, 100.
        pytest.param(IELLO, (100, 85, 85, 100), id="iello-nearest-the-first-player"),
        # +2 -1 -1 +2, then +4, +6, +8 for all: totals 20, 17, 17, 20.
        pytest.param(STD, (20, 17, 17, 20), id="standard-left-of-the-usual-first-player"),
    ],
)
def test_tie_break_seat_order(edition: Edition, totals: tuple[int, ...]) -> None:
    # D1 bids 2,2,3,3 tricks 2,3,2,3, D2-D4 all made. First player 2 -> deal 4 first player 1 (with 4 players the
    # actual and the usual first player are the same): counting from seat 1, him first, seat 3 comes before seat 0.
    deals = [((2, 2, 3, 3), F4, (2, 3, 2, 3))] + [ALL_MADE_4] * 3
    sheet = sheet_with(edition, 4, 2, deals)
    check_outcome(sheet, totals, 3, (3, 0, 1, 2), TieBreak.SEAT_ORDER)


# 3 players, first player 0, so deal 4's usual first player is (0 + 3) % 3 = 0.
# D1 bids 1,1,8 tricks 0,1,9: seat 1 alone makes it. D2 and D3 all made. Seat 1 leads after 3 deals and so
# bids first in deal 4 (IELLO and standard alike). D4 bids 3,0,4 tricks 3,3,4: seats 0 and 2 make, seat 1 misses
# by 3. Seats 0 and 2 end tied with equal last-deal points: IELLO counts from the actual first player (1): order
# 1, 2, 0 -> seat 2 wins; standard counts from the usual first player (0): order 0, 1, 2 -> seat 0 wins.
SPLIT = [
    ((1, 1, 8), NO, (0, 1, 9)),
    ((3, 3, 4), NO, (3, 3, 4)),
    ((3, 3, 4), NO, (3, 3, 4)),
    ((3, 0, 4), NO, (3, 3, 4)),
]


@pytest.mark.parametrize(
    ("edition", "totals", "ranking", "reference_seat"),
    [
        # -5 +10 -5, +20 each, +30 each (totals 45, 60, 45), then +40 -15 +40: totals 85, 45, 85.
        pytest.param(IELLO, (85, 45, 85), (2, 0, 1), 1, id="iello-counts-from-the-actual-first-player"),
        # -1 +2 -1, +4 each, +6 each (totals 9, 12, 9), then +8 -3 +8: totals 17, 9, 17.
        pytest.param(STD, (17, 9, 17), (0, 2, 1), 0, id="standard-counts-from-the-usual-first-player"),
    ],
)
def test_3p_tie_break_by_seat_order(
    edition: Edition, totals: tuple[int, ...], ranking: tuple[int, ...], reference_seat: int
) -> None:
    sheet = sheet_with(edition, 3, 0, SPLIT)
    assert [d.first_player for d in sheet.deals] == [0, 1, 2, 1]
    check_outcome(sheet, totals, ranking[0], ranking, TieBreak.SEAT_ORDER)
    assert sheet.outcome().reference_seat == reference_seat


def test_outcome_only_when_the_game_is_over() -> None:
    sheet = sheet_with(IELLO, 4, 0, [ALL_MADE_4] * 3)
    assert not sheet.is_over and sheet.outcome() is None
    assert sheet_with(IELLO, 4, 0, [ALL_MADE_4] * 4).outcome() is not None
