// Decodes one device channel's byte stream (libascend_hal's prof_channel_read) into task times and
// step traces, per chip id. A read may end inside a record: the remainder is kept and completed by
// the next read. Records of other types are skipped; malformed ones (a step trace whose size field
// is wrong) are counted and skipped. Nothing allocates: the remainder lives in the decoder.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mspti::device {

/// A task's begin or end on the device (STARS SoC log). V6 records carry no stream (has_stream false).
struct TaskTime {
    uint32_t device = 0;
    uint32_t stream = 0;
    uint32_t task = 0;
    uint32_t sub_task = 0;  ///< FFTS+ sub-task id (ffts true)
    bool has_stream = true;
    bool begin = false;
    bool ffts = false;
    uint64_t ticks = 0;  ///< device counter
};

/// A step trace reached by a stream (TS-FW; aclrtProfTrace's {indexId, modelId, tagId}).
struct StepTrace {
    uint32_t device = 0;
    uint32_t stream = 0;
    uint32_t task = 0;
    uint64_t index_id = 0;
    uint64_t model_id = 0;
    uint16_t tag = 0;
    uint64_t ticks = 0;
};

/// A 910B/310B task's begin next to its own end on one device's channel (ChannelSink::on_task_spans).
/// No member initialisers: a decoder keeps an array of them, filled before it is handed on.
struct TaskSpan {
    uint32_t stream;
    uint32_t task;
    uint64_t begin_ticks;
    uint64_t end_ticks;
};

/// Receives decoded records (on the thread that feeds the decoder).
class ChannelSink {
public:
    virtual ~ChannelSink() = default;
    virtual void on_task_time(const TaskTime &t) = 0;
    /// A task's begin and its end, when the channel gave them next to each other (as the virtual device
    /// writes them): one lookup of the task serves both. By default, the two records one at a time.
    virtual void on_task_span(const TaskTime &begin, const TaskTime &end) {
        on_task_time(begin);
        on_task_time(end);
    }
    /// A run of 910B/310B spans of `device`, in channel order (records before and after the run come
    /// through the other calls, before and after it): one call for many, so that what they share (the
    /// device's chip and clock) is read once. By default, each as on_task_span.
    virtual void on_task_spans(uint32_t device, const TaskSpan *spans, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            TaskTime begin;
            begin.device = device;
            begin.stream = spans[i].stream;
            begin.task = spans[i].task;
            begin.begin = true;
            begin.ticks = spans[i].begin_ticks;
            TaskTime end = begin;
            end.begin = false;
            end.ticks = spans[i].end_ticks;
            on_task_span(begin, end);
        }
    }
    virtual void on_step_trace(const StepTrace &s) = 0;
};

/// Counts of what a decoder saw.
struct DecoderCounts {
    uint64_t records = 0;  ///< whole records decoded and handed on
    uint64_t skipped = 0;  ///< whole records of types not read here
    uint64_t malformed = 0;  ///< whole records whose fields contradict their type
    uint64_t bytes = 0;  ///< bytes fed
};

/// Whether msPTI (and so libmspti) reads device tasks of this chip id.
bool chip_supported(uint32_t chip);
/// Record size of `channel` on `chip`; 0 for a channel or chip not read.
size_t record_size(uint32_t chip, uint32_t channel);

class ChannelDecoder {
public:
    /// A decoder for `channel` (44 or 50) of `device`, a chip of id `chip`. record_size() must be non-zero.
    ChannelDecoder(uint32_t device, uint32_t chip, uint32_t channel);

    /// Decodes `n` bytes that follow what was fed before.
    void feed(const void *data, size_t n, ChannelSink &sink);
    /// Forgets a partial record (the channel restarted: its next byte starts a record).
    void reset() { pending_ = 0; }

    size_t pending() const { return pending_; }
    size_t record_bytes() const { return size_; }
    const DecoderCounts &counts() const { return counts_; }
    uint32_t device() const { return device_; }
    uint32_t channel() const { return channel_; }

private:
    void decode(const unsigned char *record, ChannelSink &sink);
    void decode_soc_log(const unsigned char *r, ChannelSink &sink);
    // The task begin or end in SoC log `r`; false for other logs (not counted here).
    bool soc_log(const unsigned char *r, TaskTime &t) const;
    // Whole SoC logs from `p`: a begin followed by its own end goes to the sink as one span. The bytes used.
    size_t feed_soc_logs(const unsigned char *p, size_t n, ChannelSink &sink);
    void decode_step_trace(const unsigned char *r, ChannelSink &sink);

    static constexpr size_t kMaxRecord = 64;
    static constexpr size_t kSpanRun = 64;  // spans handed on per on_task_spans at most
    uint32_t device_;
    uint32_t chip_;
    uint32_t channel_;
    size_t size_;
    size_t pending_ = 0;
    unsigned char partial_[kMaxRecord]{};
    TaskSpan spans_[kSpanRun];  // feed_soc_logs' run of spans, filled before it is handed on
    DecoderCounts counts_;
};

}  // namespace mspti::device
