/*
 * driver.c: the reference side of engine/syzygy's tests (nnuelab, MIT).
 *
 * It compiles Fathom's prober into itself (tbprobe.c is included, not
 * linked, so that the static probe_wdl and probe_dtz, the values Fathom's
 * own root probe is built on, can be called directly) and reads FENs from
 * standard input, one a line.
 *
 *   driver DIR          for each FEN prints one line
 *                         "<wdl> <dtz> <root>"
 *                       wdl: probe_wdl, -2..2 from the side to move;
 *                       dtz: probe_dtz, signed plies (Fathom's convention);
 *                       root: what fathom.linux prints for the position,
 *                         "<WDL>/<DTZ>" with WDL one of Loss BlessedLoss
 *                         Draw CursedWin Win (it depends on the FEN's
 *                         halfmove clock) and DTZ unsigned, or "mate",
 *                         "stalemate" or "failed";
 *                       or "fail <what>" when a probe fails.
 *   driver -bench N DIR probes every FEN with tb_probe_wdl (the call an
 *                       engine makes in search) N times after one untimed
 *                       pass and prints "<wall ns per probe> <CPU ns per
 *                       probe> <probes> <sum of results>" (CPU: the
 *                       thread's CPU time, steadier on a busy machine).
 *   driver -serve DIR   reads FENs up to a line "end", makes one untimed
 *                       pass, then for each further line N makes N timed
 *                       passes and prints a line as -bench does: so that
 *                       a caller can alternate its own timed passes with
 *                       Fathom's, both under the same machine load.
 *
 * Build: cc -O2 -I. -o driver driver.c -lpthread (run in this directory or
 * with -I pointing at it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tbprobe.c"

struct fenpos {
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
    unsigned castling, rule50, ep;
    bool turn; /* true: white to move */
};

/* parse_fen reads the fields Fathom needs; it returns false on a FEN it
 * cannot read. */
static bool parse_fen(const char *s, struct fenpos *p)
{
    memset(p, 0, sizeof(*p));
    int rank = 7, file = 0;
    for (; *s && *s != ' '; s++) {
        char c = *s;
        if (c == '/') {
            rank--;
            file = 0;
            continue;
        }
        if (c >= '1' && c <= '8') {
            file += c - '0';
            continue;
        }
        if (rank < 0 || file > 7)
            return false;
        uint64_t b = 1ULL << (8 * rank + file);
        if (c >= 'a' && c <= 'z') {
            p->black |= b;
            c = (char)(c - 'a' + 'A');
        } else {
            p->white |= b;
        }
        switch (c) {
        case 'K': p->kings |= b; break;
        case 'Q': p->queens |= b; break;
        case 'R': p->rooks |= b; break;
        case 'B': p->bishops |= b; break;
        case 'N': p->knights |= b; break;
        case 'P': p->pawns |= b; break;
        default: return false;
        }
        file++;
    }
    if (*s++ != ' ')
        return false;
    if (*s == 'w')
        p->turn = true;
    else if (*s != 'b')
        return false;
    s++;
    if (*s++ != ' ')
        return false;
    for (; *s && *s != ' '; s++) {
        switch (*s) {
        case 'K': p->castling |= TB_CASTLING_K; break;
        case 'Q': p->castling |= TB_CASTLING_Q; break;
        case 'k': p->castling |= TB_CASTLING_k; break;
        case 'q': p->castling |= TB_CASTLING_q; break;
        case '-': break;
        default: return false;
        }
    }
    if (*s++ != ' ')
        return false;
    if (*s == '-') {
        s++;
    } else {
        if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
            return false;
        p->ep = (unsigned)(8 * (s[1] - '1') + (s[0] - 'a'));
        s += 2;
    }
    if (*s == ' ')
        p->rule50 = (unsigned)atoi(s + 1);
    return true;
}

static Pos to_pos(const struct fenpos *f)
{
    Pos pos = {f->white, f->black, f->kings, f->queens, f->rooks,
               f->bishops, f->knights, f->pawns, (uint8_t)f->rule50,
               (uint8_t)f->ep, f->turn};
    return pos;
}

static const char *wdl_names[5] = {"Loss", "BlessedLoss", "Draw",
                                   "CursedWin", "Win"};

static void probe_line(const char *fen)
{
    struct fenpos f;
    if (!parse_fen(fen, &f)) {
        printf("fail fen\n");
        return;
    }
    if (f.castling) {
        printf("fail castling\n");
        return;
    }
    Pos pos = to_pos(&f);
    int success;
    int wdl = probe_wdl(&pos, &success);
    if (!success) {
        printf("fail wdl\n");
        return;
    }
    pos = to_pos(&f);
    int dtz = probe_dtz(&pos, &success);
    if (!success) {
        printf("fail dtz\n");
        return;
    }
    unsigned res = tb_probe_root(f.white, f.black, f.kings, f.queens,
                                 f.rooks, f.bishops, f.knights, f.pawns,
                                 f.rule50, f.castling, f.ep, f.turn, NULL);
    char root[32];
    if (res == TB_RESULT_FAILED)
        snprintf(root, sizeof root, "failed");
    else if (res == TB_RESULT_CHECKMATE)
        snprintf(root, sizeof root, "mate");
    else if (res == TB_RESULT_STALEMATE)
        snprintf(root, sizeof root, "stalemate");
    else
        snprintf(root, sizeof root, "%s/%u", wdl_names[TB_GET_WDL(res)],
                 TB_GET_DTZ(res));
    printf("%d %d %s\n", wdl, dtz, root);
}

static double now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* passes probes every position rounds times and prints the -bench line;
 * it returns false if a probe fails. */
static bool passes(const struct fenpos *ps, size_t n, int rounds)
{
    unsigned long long sum = 0;
    double start = now_ns(CLOCK_MONOTONIC);
    double cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            const struct fenpos *f = &ps[i];
            unsigned v = tb_probe_wdl(f->white, f->black, f->kings,
                                      f->queens, f->rooks, f->bishops,
                                      f->knights, f->pawns, 0, 0, f->ep,
                                      f->turn);
            if (v == TB_RESULT_FAILED) {
                fprintf(stderr, "probe failed: %zu\n", i);
                return false;
            }
            sum += v;
        }
    }
    double ns = now_ns(CLOCK_MONOTONIC) - start;
    double cns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
    double probes = (double)n * rounds;
    printf("%.2f %.2f %llu %llu\n", ns / probes, cns / probes,
           (unsigned long long)n * rounds, sum);
    fflush(stdout);
    return true;
}

/* bench reads FENs (up to the end of the input, or a line "end" when
 * serving), makes one untimed pass to load the tables, then times rounds
 * passes; serving, it then times as many passes as each further line
 * asks for. */
static int bench(int rounds, bool serve)
{
    size_t cap = 1024, n = 0;
    struct fenpos *ps = malloc(cap * sizeof *ps);
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0])
            continue;
        if (serve && strcmp(line, "end") == 0)
            break;
        if (n == cap) {
            cap *= 2;
            ps = realloc(ps, cap * sizeof *ps);
        }
        if (!parse_fen(line, &ps[n])) {
            fprintf(stderr, "bad FEN: %s\n", line);
            return 1;
        }
        n++;
    }
    for (size_t i = 0; i < n; i++) { /* untimed: loads the tables */
        const struct fenpos *f = &ps[i];
        unsigned v = tb_probe_wdl(f->white, f->black, f->kings, f->queens,
                                  f->rooks, f->bishops, f->knights,
                                  f->pawns, 0, 0, f->ep, f->turn);
        if (v == TB_RESULT_FAILED) {
            fprintf(stderr, "probe failed: %zu\n", i);
            return 1;
        }
    }
    if (!serve)
        return passes(ps, n, rounds) ? 0 : 1;
    while (fgets(line, sizeof line, stdin)) {
        int k = atoi(line);
        if (k < 1) {
            fprintf(stderr, "serve: want a number of passes, got %s", line);
            return 2;
        }
        if (!passes(ps, n, k))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 0;
    bool serve = false;
    const char *dir;
    if (argc == 3 && strcmp(argv[1], "-serve") == 0) {
        serve = true;
        dir = argv[2];
    } else if (argc == 4 && strcmp(argv[1], "-bench") == 0) {
        rounds = atoi(argv[2]);
        dir = argv[3];
        if (rounds < 1) {
            fprintf(stderr, "rounds must be at least 1\n");
            return 2;
        }
    } else if (argc == 2) {
        dir = argv[1];
    } else {
        fprintf(stderr, "usage: driver [-bench N | -serve] DIR < fens\n");
        return 2;
    }
    if (!tb_init(dir) || TB_LARGEST == 0) {
        fprintf(stderr, "no tables in %s\n", dir);
        return 1;
    }
    if (rounds > 0 || serve)
        return bench(rounds, serve);
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0])
            continue;
        probe_line(line);
    }
    return 0;
}
