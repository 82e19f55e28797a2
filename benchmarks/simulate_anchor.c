/*
 * A plain C blackjack simulator, the anchor croupier's simulator kernel is timed beside
 * (benchmarks/simulate_vs_c.py builds it with gcc -O2 and runs both in one run).
 *
 * The game: 6 decks, the dealer stands on soft 17, peeks for blackjack under an Ace or
 * a ten; blackjack pays 3:2; double on any two cards, after a split too; pairs of the
 * same rank split once (two hands), split Aces take one card each; no surrender, no
 * insurance; one box, one unit a round; the shoe is shuffled when 75% of it is dealt.
 * The strategy is a total-dependent basic strategy table: by default the textbook one
 * for 4-8 decks, S17, DAS, no surrender; built with -DSTRATEGY_FILE='"file.h"' it is
 * that file's, which defines HARD, SOFT, PAIR, DRAWN_HARD and DRAWN_SOFT (the benchmark
 * writes croupier's own chart there, so both play the same strategy).
 *
 * Cards are dealt by an incremental Fisher-Yates shuffle (each card dealt is picked
 * uniformly from those not dealt yet, so a card costs one random number and a reshuffle
 * costs nothing), from xoshiro256** with Lemire's unbiased bounded integers.
 *
 * Usage: simulate_anchor ROUNDS [SEED]
 * Prints: rounds, the net in half units, the sum of the squared net in half units, and
 * the CPU seconds the rounds took (clock()), separated by spaces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { DECKS = 6, CARDS = 52 * DECKS, CUT = CARDS * 3 / 4 };

/* Plays: H hit, S stand, D double else hit, d double else stand, P split. */
enum { H = 0, S = 1, D = 2, d = 3, P = 4 };

#ifdef STRATEGY_FILE
#include STRATEGY_FILE
#else
/* The first decision on two cards by up card A, 2..10 (index 0 to 9): HARD[total],
 * SOFT[total] (the Ace counted as 11), PAIR[points - 1] (split or not).  A hand of three
 * cards or more hits or stands by DRAWN_HARD and DRAWN_SOFT: here the first decision's
 * play without the double (filled in by main), as a textbook chart reads. */
#define DRAWN_FROM_FIRST 1
static unsigned char DRAWN_HARD[22][10], DRAWN_SOFT[22][10];
static const unsigned char HARD[22][10] = {
    [4] = {H, H, H, H, H, H, H, H, H, H},  [5] = {H, H, H, H, H, H, H, H, H, H},
    [6] = {H, H, H, H, H, H, H, H, H, H},  [7] = {H, H, H, H, H, H, H, H, H, H},
    [8] = {H, H, H, H, H, H, H, H, H, H},  [9] = {H, H, D, D, D, D, H, H, H, H},
    [10] = {H, D, D, D, D, D, D, D, D, H}, [11] = {H, D, D, D, D, D, D, D, D, D},
    [12] = {H, H, H, S, S, S, H, H, H, H}, [13] = {H, S, S, S, S, S, H, H, H, H},
    [14] = {H, S, S, S, S, S, H, H, H, H}, [15] = {H, S, S, S, S, S, H, H, H, H},
    [16] = {H, S, S, S, S, S, H, H, H, H}, [17] = {S, S, S, S, S, S, S, S, S, S},
    [18] = {S, S, S, S, S, S, S, S, S, S}, [19] = {S, S, S, S, S, S, S, S, S, S},
    [20] = {S, S, S, S, S, S, S, S, S, S}, [21] = {S, S, S, S, S, S, S, S, S, S},
};
static const unsigned char SOFT[22][10] = {
    [12] = {H, H, H, H, H, H, H, H, H, H}, [13] = {H, H, H, H, D, D, H, H, H, H},
    [14] = {H, H, H, H, D, D, H, H, H, H}, [15] = {H, H, H, D, D, D, H, H, H, H},
    [16] = {H, H, H, D, D, D, H, H, H, H}, [17] = {H, H, D, D, D, D, H, H, H, H},
    [18] = {H, S, d, d, d, d, S, S, H, H}, [19] = {S, S, S, S, S, S, S, S, S, S},
    [20] = {S, S, S, S, S, S, S, S, S, S}, [21] = {S, S, S, S, S, S, S, S, S, S},
};
static const unsigned char PAIR[10][10] = {
    /* A */ {P, P, P, P, P, P, P, P, P, P},
    /* 2 */ {H, P, P, P, P, P, P, H, H, H},
    /* 3 */ {H, P, P, P, P, P, P, H, H, H},
    /* 4 */ {H, H, H, H, P, P, H, H, H, H},
    /* 5 */ {H, H, H, H, H, H, H, H, H, H},
    /* 6 */ {H, P, P, P, P, P, H, H, H, H},
    /* 7 */ {H, P, P, P, P, P, P, H, H, H},
    /* 8 */ {P, P, P, P, P, P, P, P, P, P},
    /* 9 */ {S, P, P, P, P, P, S, P, P, S},
    /* 10 */ {S, S, S, S, S, S, S, S, S, S},
};
#endif

static uint64_t s[4];

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next(void) {
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* A uniform integer below bound (< 2^32): Lemire's method, rejecting the biased few. */
static inline uint32_t below(uint32_t bound) {
    uint64_t m = (next() >> 32) * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        uint32_t threshold = -bound % bound;
        while (low < threshold) {
            m = (next() >> 32) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

static unsigned char shoe[CARDS]; /* ranks 0 (Ace) to 12 (King) */
static int pos;

static inline int deal(void) {
    int j = pos + (int)below((uint32_t)(CARDS - pos));
    unsigned char card = shoe[j];
    shoe[j] = shoe[pos];
    shoe[pos++] = card;
    return card;
}

static inline int points(int rank) { return rank < 9 ? rank + 1 : 10; }

/* A hand: its hard total (Aces as 1) and whether it holds an Ace. */
typedef struct {
    int hard, ace;
} Hand;

static inline int total(Hand h) { return h.ace && h.hard <= 11 ? h.hard + 10 : h.hard; }
static inline int soft(Hand h) { return h.ace && h.hard <= 11; }
static inline void add(Hand *h, int rank) {
    h->hard += points(rank);
    h->ace |= rank == 0;
}

/* Plays a hand on from two cards; returns its stake in units (1, or 2 when doubled);
 * its final cards in *h.  Split Aces take no card beyond their second. */
static inline int play_hand(Hand *h, int up, int split_aces) {
    if (split_aces) return 1;
    int t = total(*h);
    unsigned char play = soft(*h) ? SOFT[t][up] : HARD[t][up];
    if (play == D || play == d) {
        add(h, deal());
        return 2;
    }
    while (play == H) {
        add(h, deal());
        if (h->hard > 21) return 1;
        t = total(*h);
        play = soft(*h) ? DRAWN_SOFT[t][up] : DRAWN_HARD[t][up];
    }
    return 1;
}

/* The net in half units of a hand of stake units against the dealer's final total. */
static inline int settle(Hand h, int stake, int dealer) {
    if (h.hard > 21) return -2 * stake;
    int t = total(h);
    if (dealer > 21 || t > dealer) return 2 * stake;
    if (t == dealer) return 0;
    return -2 * stake;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: simulate_anchor ROUNDS [SEED]\n");
        return 2;
    }
    long long rounds = atoll(argv[1]);
    uint64_t seed = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
    /* splitmix64 fills the generator's state from the seed. */
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        s[i] = z ^ (z >> 31);
    }
#ifdef DRAWN_FROM_FIRST
    for (int t = 0; t < 22; t++) {
        for (int u = 0; u < 10; u++) {
            DRAWN_HARD[t][u] = HARD[t][u] == S || HARD[t][u] == d ? S : H;
            DRAWN_SOFT[t][u] = SOFT[t][u] == S || SOFT[t][u] == d ? S : H;
        }
    }
#endif
    for (int i = 0; i < CARDS; i++) shoe[i] = (unsigned char)(i % 13);
    pos = CARDS;
    long long net = 0, squares = 0;
    clock_t start = clock();
    for (long long r = 0; r < rounds; r++) {
        if (pos >= CUT) pos = 0; /* the shuffle: the incremental deal makes it free */
        int p1 = deal(), hole = deal(), p2 = deal(), up_rank = deal();
        int up = points(up_rank) - 1; /* 0 Ace .. 9 ten */
        Hand player = {points(p1) + points(p2), p1 == 0 || p2 == 0};
        Hand dealer = {points(up_rank) + points(hole), up_rank == 0 || hole == 0};
        int player_blackjack = player.hard == 11 && player.ace;
        int dealer_blackjack = dealer.hard == 11 && dealer.ace;
        long long result;
        if (dealer_blackjack) { /* the peek (or the hole card turned) */
            result = player_blackjack ? 0 : -2;
        } else if (player_blackjack) {
            result = 3;
        } else {
            Hand hands[2];
            int stakes[2], count = 1;
            int pair = p1 == p2 && PAIR[points(p1) - 1][up] == P;
            if (pair) {
                int aces = p1 == 0;
                count = 2;
                for (int k = 0; k < 2; k++) {
                    hands[k] = (Hand){points(p1), aces};
                    add(&hands[k], deal());
                    stakes[k] = play_hand(&hands[k], up, aces);
                }
            } else {
                hands[0] = player;
                stakes[0] = play_hand(&hands[0], up, 0);
            }
            int live = 0;
            for (int k = 0; k < count; k++) live |= hands[k].hard <= 21;
            if (live) {
                while (total(dealer) < 17) add(&dealer, deal());
            }
            int final = total(dealer);
            result = 0;
            for (int k = 0; k < count; k++) result += settle(hands[k], stakes[k], final);
        }
        net += result;
        squares += result * result;
    }
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("%lld %lld %lld %.6f\n", rounds, net, squares, seconds);
    return 0;
}
