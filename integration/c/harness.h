/*
 * harness.h - a tiny test runner for the C tests of essence2.
 *
 * Every test is a `void test_xxx(void)` listed in a `struct test_case` table. By default each test
 * runs in a forked child process, so a crash, a hang or a leaked engine in one test cannot disturb the
 * others (the parent never calls the library itself). `--no-fork` runs them in-process (for a debugger).
 *
 * Output: one line per test ("ok   name (1.23 s)" or "FAIL name: why"), details of failed checks indented
 * above it, and a last line "N passed, M failed" alone. The exit status is 1 when any test failed.
 */
#ifndef ESSENCE2_TEST_HARNESS_H
#define ESSENCE2_TEST_HARNESS_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void (*test_fn)(void);

struct test_case {
    const char *name;
    test_fn fn;
    int timeout_s; /* the child is killed after this long */
};

/*
 * The functions below are `static inline`, so every .c file of a test program can include this header.
 * The count of failed checks is one variable for the whole program: the program defines it in one .c file
 * (`int harness_failures;`).
 */

/* Failed checks of the running test (in the process that runs it). */
extern int harness_failures;

static inline void harness_report(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline void harness_report(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("    %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    harness_failures++;
}

/* CHECK(cond, fmt, ...): records a failure with a message when cond is false; the test goes on. */
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) harness_report(__FILE__, __LINE__, __VA_ARGS__);      \
    } while (0)

/* CHECK_EQ(what, got, want): integer equality, reports "what: expected W, got G". */
#define CHECK_EQ(what, got, want)                                                              \
    do {                                                                                       \
        long long check_got_ = (long long)(got), check_want_ = (long long)(want);              \
        if (check_got_ != check_want_)                                                         \
            harness_report(__FILE__, __LINE__, "%s: expected %lld, got %lld", (what),          \
                           check_want_, check_got_);                                           \
    } while (0)

/* REQUIRE(cond, fmt, ...): as CHECK, then jumps to the test's `done:` cleanup label. */
#define REQUIRE(cond, ...)                                                 \
    do {                                                                   \
        if (!(cond)) {                                                     \
            harness_report(__FILE__, __LINE__, __VA_ARGS__);               \
            goto done;                                                     \
        }                                                                  \
    } while (0)

/* Logs a measured number or a remark under the test's line (not a failure). */
#define NOTE(...)                                                          \
    do {                                                                   \
        printf("    note: ");                                              \
        printf(__VA_ARGS__);                                               \
        printf("\n");                                                      \
        fflush(stdout);                                                    \
    } while (0)

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void sleep_ms(double ms) {
    if (ms <= 0) return;
    struct timespec ts;
    ts.tv_sec = (time_t)(ms / 1000.0);
    ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000.0) * 1e6);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Runs one test in a child process; returns 1 when it passed. */
static inline int harness_run_forked(const struct test_case *t, char *why, size_t why_len) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_len, "fork failed: %s", strerror(errno));
        return 0;
    }
    if (pid == 0) {
        harness_failures = 0;
        t->fn();
        fflush(stdout);
        fflush(stderr);
        /* _exit: the library's render threads may still be running; skip exit-time destructors. */
        _exit(harness_failures == 0 ? 0 : 1);
    }
    double deadline = now_s() + t->timeout_s;
    for (;;) {
        int status = 0;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            if (WIFEXITED(status)) {
                if (WEXITSTATUS(status) == 0) return 1;
                snprintf(why, why_len, "%s", "checks failed");
                return 0;
            }
            if (WIFSIGNALED(status)) {
                snprintf(why, why_len, "crashed with signal %d (%s)", WTERMSIG(status),
                         strsignal(WTERMSIG(status)));
                return 0;
            }
            snprintf(why, why_len, "%s", "ended abnormally");
            return 0;
        }
        if (r < 0 && errno != EINTR) {
            snprintf(why, why_len, "waitpid failed: %s", strerror(errno));
            return 0;
        }
        if (now_s() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            snprintf(why, why_len, "timed out after %d s (hung?)", t->timeout_s);
            return 0;
        }
        sleep_ms(5);
    }
}

/*
 * Runs the tests whose name contains one of `filters` (all when there is none), prints the summary and
 * returns the process exit status.
 */
static inline int harness_main(const struct test_case *tests, size_t count, int fork_each, char **filters,
                        int filter_count) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < count; i++) {
        const struct test_case *t = &tests[i];
        if (filter_count > 0) {
            int match = 0;
            for (int f = 0; f < filter_count; f++)
                if (strstr(t->name, filters[f])) match = 1;
            if (!match) continue;
        }
        char why[256] = "checks failed";
        double t0 = now_s();
        int ok;
        if (fork_each) {
            ok = harness_run_forked(t, why, sizeof why);
        } else {
            harness_failures = 0;
            t->fn();
            ok = harness_failures == 0;
        }
        double dt = now_s() - t0;
        if (ok) {
            passed++;
            printf("ok   %s (%.2f s)\n", t->name, dt);
        } else {
            failed++;
            printf("FAIL %s: %s (%.2f s)\n", t->name, why, dt);
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    fflush(stdout);
    return failed == 0 ? 0 : 1;
}

#endif /* ESSENCE2_TEST_HARNESS_H */
