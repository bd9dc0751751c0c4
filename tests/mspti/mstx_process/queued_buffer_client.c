/* A client written as msPTI's and CUPTI's clients are: its complete callback only queues the
 * buffer, and another thread reads the records later, after more buffers came and went. It uses
 * msPTI's headers alone (no extension call). Every marker name must read back exactly, each once.
 *
 * usage: queued_buffer_client [names per round] [rounds] [buffer bytes]
 * Rounds of unique names ("r<round> n<i>") are marked by two threads, each round followed by a
 * flush; the queue is read only after the last flush, on a reader thread. Each thread then starts
 * and ends ranges, four in a row per name ("r<round> g<group>", rewritten in the same buffer), so
 * that from the second of each four a start takes the path that keeps the thread's last message.
 * Exit 0 when every name is found exactly once (a range's name four times, each start's id ended
 * once, every end's name ""), 1 (with the first bad names printed) otherwise. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mspti/mspti.h"
#include "mstx/ms_tools_ext.h"

typedef struct Queued {
    uint8_t *buffer;
    size_t valid;
    struct Queued *next;
} Queued;

static pthread_mutex_t g_queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static Queued *g_head = NULL, *g_tail = NULL;
static size_t g_buffer_bytes = 1 << 16;

static void request(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = (uint8_t *)malloc(g_buffer_bytes); /* 16-aligned: more than the records need */
    *size = *buffer != NULL ? g_buffer_bytes : 0;
    *max_records = 0;
}

/* Queues the buffer and returns: the records are read later, on another thread. */
static void complete(uint8_t *buffer, size_t size, size_t valid) {
    (void)size;
    Queued *q = (Queued *)malloc(sizeof(Queued));
    if (q == NULL) abort();
    q->buffer = buffer;
    q->valid = valid;
    q->next = NULL;
    pthread_mutex_lock(&g_queue_mutex);
    if (g_tail != NULL)
        g_tail->next = q;
    else
        g_head = q;
    g_tail = q;
    pthread_mutex_unlock(&g_queue_mutex);
}

typedef struct {
    int round, first, count;
} MarkJob;

enum { kRangesPerName = 4 };

static void *mark_names(void *arg) {
    const MarkJob *job = (const MarkJob *)arg;
    char name[64];
    for (int i = job->first; i < job->first + job->count; ++i) {
        snprintf(name, sizeof(name), "r%d n%d", job->round, i);
        mstxMarkA(name, NULL);
    }
    for (int i = job->first; i < job->first + job->count; ++i) {
        if (i % kRangesPerName == 0) snprintf(name, sizeof(name), "r%d g%d", job->round, i / kRangesPerName);
        mstxRangeEnd(mstxRangeStartA(name, NULL));
    }
    return NULL;
}

typedef struct {
    int per_round, rounds;
    unsigned char *seen; /* per_round * rounds counters */
    unsigned char *group_seen; /* per_round / kRangesPerName * rounds counters */
    uint64_t *start_ids, *end_ids;
    unsigned long long markers, starts, ends, bad, dup;
} Reader;

static void bad_name(Reader *r, const char *what, const char *name) {
    if (r->bad++ >= 5) return;
    fprintf(stderr, "%s: \"", what);
    for (const unsigned char *p = (const unsigned char *)name; *p != '\0' && p - (const unsigned char *)name < 40; ++p)
        fprintf(stderr, *p >= 32 && *p < 127 ? "%c" : "\\x%02x", *p);
    fprintf(stderr, "\"\n");
}

static void check_range(Reader *r, const msptiActivityMarker *m) {
    const size_t total = (size_t)r->per_round * (size_t)r->rounds;
    if (m->flag == MSPTI_ACTIVITY_FLAG_MARKER_END) {
        if (m->name[0] != '\0') bad_name(r, "an end with a name", m->name);
        if (r->ends < total) r->end_ids[r->ends] = m->id;
        ++r->ends;
        return;
    }
    if (r->starts < total) r->start_ids[r->starts] = m->id;
    ++r->starts;
    const int groups = r->per_round / kRangesPerName;
    int round, group, used = 0;
    if (sscanf(m->name, "r%d g%d%n", &round, &group, &used) != 2 || m->name[used] != '\0' || round < 0 ||
        round >= r->rounds || group < 0 || group >= groups) {
        bad_name(r, "bad range name", m->name);
        return;
    }
    unsigned char *count = &r->group_seen[(size_t)round * (size_t)groups + (size_t)group];
    if (++*count > kRangesPerName && r->dup++ < 5) fprintf(stderr, "range name read too often: %s\n", m->name);
}

static int compare_ids(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every range started is ended once: the sorted start ids, all distinct, are the sorted end ids. */
static unsigned long long unpaired_ranges(Reader *r) {
    const size_t total = (size_t)r->per_round * (size_t)r->rounds;
    if (r->starts != total || r->ends != total) return total;
    qsort(r->start_ids, total, sizeof(uint64_t), compare_ids);
    qsort(r->end_ids, total, sizeof(uint64_t), compare_ids);
    unsigned long long unpaired = 0;
    for (size_t i = 0; i < total; ++i)
        unpaired += r->start_ids[i] != r->end_ids[i] || (i > 0 && r->start_ids[i] == r->start_ids[i - 1]);
    return unpaired;
}

static void check_name(Reader *r, const char *name) {
    int round, index, used = 0;
    if (sscanf(name, "r%d n%d%n", &round, &index, &used) != 2 || name[used] != '\0' || round < 0 ||
        round >= r->rounds || index < 0 || index >= r->per_round) {
        bad_name(r, "bad name", name);
        return;
    }
    unsigned char *count = &r->seen[(size_t)round * (size_t)r->per_round + (size_t)index];
    if (*count != 0 && r->dup++ < 5) fprintf(stderr, "name read twice: %s\n", name);
    *count = 1;
}

static void *read_queue(void *arg) {
    Reader *r = (Reader *)arg;
    pthread_mutex_lock(&g_queue_mutex);
    Queued *q = g_head;
    g_head = g_tail = NULL;
    pthread_mutex_unlock(&g_queue_mutex);
    while (q != NULL) {
        msptiActivity *record = NULL;
        while (msptiActivityGetNextRecord(q->buffer, q->valid, &record) == MSPTI_SUCCESS) {
            if (record->kind != MSPTI_ACTIVITY_KIND_MARKER) continue;
            const msptiActivityMarker *m = (const msptiActivityMarker *)record;
            if (m->flag != MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
                check_range(r, m);
                continue;
            }
            ++r->markers;
            check_name(r, m->name);
            if (strcmp(m->domain, "default") != 0 && r->bad++ < 5) fprintf(stderr, "bad domain\n");
        }
        Queued *next = q->next;
        free(q->buffer);
        free(q);
        q = next;
    }
    return NULL;
}

int main(int argc, char **argv) {
    int per_round = argc > 1 ? atoi(argv[1]) : 300000;
    int rounds = argc > 2 ? atoi(argv[2]) : 2;
    if (argc > 3) g_buffer_bytes = (size_t)strtoul(argv[3], NULL, 10);
    if (per_round <= 0 || rounds <= 0 || per_round % (2 * kRangesPerName) != 0) {
        fprintf(stderr, "usage: %s [names per round, a multiple of %d] [rounds] [buffer bytes]\n", argv[0],
                2 * kRangesPerName);
        return 2;
    }
    if (msptiActivityRegisterCallbacks(request, complete) != MSPTI_SUCCESS ||
        msptiActivityEnable(MSPTI_ACTIVITY_KIND_MARKER) != MSPTI_SUCCESS) {
        fprintf(stderr, "could not enable MARKER\n");
        return 2;
    }
    for (int round = 0; round < rounds; ++round) {
        MarkJob jobs[2] = {{round, 0, per_round / 2}, {round, per_round / 2, per_round / 2}};
        pthread_t threads[2];
        for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, mark_names, &jobs[t]);
        for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
        msptiActivityFlushAll(1);
    }
    /* The markers' threads are gone and every buffer came back before this point. */
    const size_t total = (size_t)per_round * (size_t)rounds;
    Reader reader = {per_round,
                     rounds,
                     (unsigned char *)calloc(total, 1),
                     (unsigned char *)calloc(total / kRangesPerName, 1),
                     (uint64_t *)calloc(total, sizeof(uint64_t)),
                     (uint64_t *)calloc(total, sizeof(uint64_t)),
                     0,
                     0,
                     0,
                     0,
                     0};
    if (reader.seen == NULL || reader.group_seen == NULL || reader.start_ids == NULL || reader.end_ids == NULL)
        return 2;
    pthread_t thread;
    pthread_create(&thread, NULL, read_queue, &reader);
    pthread_join(thread, NULL);
    unsigned long long missing = 0;
    for (size_t i = 0; i < total; ++i) missing += reader.seen[i] == 0;
    for (size_t i = 0; i < total / kRangesPerName; ++i) missing += reader.group_seen[i] != kRangesPerName;
    const unsigned long long unpaired = unpaired_ranges(&reader);
    msptiActivityDisable(MSPTI_ACTIVITY_KIND_MARKER);
    printf(
        "%llu markers and %llu + %llu range records read; %llu bad names, %llu read twice, %llu missing, "
        "%llu ranges not ended exactly once\n",
        reader.markers, reader.starts, reader.ends, reader.bad, reader.dup, missing, unpaired);
    free(reader.seen);
    free(reader.group_seen);
    free(reader.start_ids);
    free(reader.end_ids);
    return reader.bad == 0 && reader.dup == 0 && missing == 0 && unpaired == 0 && reader.markers == total ? 0 : 1;
}
