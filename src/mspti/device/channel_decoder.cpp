#include "device/channel_decoder.h"

#include <cstring>

#include "device/cann_layouts.h"

namespace mspti::device {

using namespace cann;

bool chip_supported(uint32_t chip) { return chip == kChip910B || chip == kChip310B || chip == kChipV6; }

size_t record_size(uint32_t chip, uint32_t channel) {
    if (!chip_supported(chip)) return 0;
    if (channel == kChannelTsFw) return StepTraceLayout::kSize;
    if (channel == kChannelStarsSocLog) return chip == kChipV6 ? SocLogV6Layout::kSize : SocLogLayout::kSize;
    return 0;
}

ChannelDecoder::ChannelDecoder(uint32_t device, uint32_t chip, uint32_t channel)
    : device_(device), chip_(chip), channel_(channel), size_(record_size(chip, channel)) {}

void ChannelDecoder::feed(const void *data, size_t n, ChannelSink &sink) {
    if (size_ == 0 || data == nullptr) return;
    counts_.bytes += n;
    auto p = static_cast<const unsigned char *>(data);
    if (pending_ != 0) {  // complete the record the last read cut
        size_t take = size_ - pending_ < n ? size_ - pending_ : n;
        std::memcpy(partial_ + pending_, p, take);
        pending_ += take;
        p += take;
        n -= take;
        if (pending_ < size_) return;
        decode(partial_, sink);
        pending_ = 0;
    }
    if (channel_ == kChannelStarsSocLog) {
        const size_t used = feed_soc_logs(p, n, sink);
        p += used;
        n -= used;
    }
    for (; n >= size_; p += size_, n -= size_) decode(p, sink);
    std::memcpy(partial_, p, n);
    pending_ = n;
}

void ChannelDecoder::decode(const unsigned char *record, ChannelSink &sink) {
    if (channel_ == kChannelStarsSocLog)
        decode_soc_log(record, sink);
    else
        decode_step_trace(record, sink);
}

bool ChannelDecoder::soc_log(const unsigned char *r, TaskTime &t) const {
    uint16_t func = load<uint16_t>(r, SocLogLayout::kHeader) & 0x3f;
    t.device = device_;
    if (chip_ == kChipV6) {
        if (func != kFuncBegin && func != kFuncEnd) return false;
        t.has_stream = false;
        t.task = load<uint32_t>(r, SocLogV6Layout::kTask);
        t.ticks = load<uint64_t>(r, SocLogV6Layout::kTimestamp);
    } else {
        // Other SoC logs share the channel.
        if (func != kFuncBegin && func != kFuncEnd && func != kFuncFftsStart && func != kFuncFftsEnd) return false;
        t.stream = load<uint16_t>(r, SocLogLayout::kStream);
        t.task = load<uint16_t>(r, SocLogLayout::kTask);
        t.ticks = load<uint64_t>(r, SocLogLayout::kTimestamp);
        t.ffts = func == kFuncFftsStart || func == kFuncFftsEnd;
        if (t.ffts) t.sub_task = load<uint16_t>(r, SocLogLayout::kSubTaskId);
    }
    t.begin = func == kFuncBegin || func == kFuncFftsStart;
    return true;
}

void ChannelDecoder::decode_soc_log(const unsigned char *r, ChannelSink &sink) {
    TaskTime t;
    if (!soc_log(r, t)) {
        ++counts_.skipped;
        return;
    }
    ++counts_.records;
    sink.on_task_time(t);
}

size_t ChannelDecoder::feed_soc_logs(const unsigned char *p, size_t n, ChannelSink &sink) {
    const unsigned char *const from = p;
    const bool v6 = chip_ == kChipV6;
    // Spans go to the sink in runs (on_task_spans); a run is handed on before any other record, so the
    // sink sees the channel's order.
    size_t run = 0;
    auto hand_on = [&] {
        if (run != 0) sink.on_task_spans(device_, spans_, run);
        run = 0;
    };
    while (n >= size_) {
        // 910B/310B's common case, told from the raw bytes: a task's begin (funcType 0) and then its own
        // end (1: the same stream and task id, one 32-bit word). The span the general path below would
        // give, without decoding either record in full.
        if (!v6 && n >= 2 * size_) {
            const unsigned char *q = p + size_;
            static_assert(SocLogLayout::kTask == SocLogLayout::kStream + 2, "the task id follows the stream");
            const uint32_t where = load<uint32_t>(p, SocLogLayout::kStream);  // stream, then task id
            if ((load<uint16_t>(p, SocLogLayout::kHeader) & 0x3f) == kFuncBegin &&
                (load<uint16_t>(q, SocLogLayout::kHeader) & 0x3f) == kFuncEnd &&
                load<uint32_t>(q, SocLogLayout::kStream) == where) {
                TaskSpan &span = spans_[run++];
                span.stream = where & 0xffff;
                span.task = where >> 16;
                span.begin_ticks = load<uint64_t>(p, SocLogLayout::kTimestamp);
                span.end_ticks = load<uint64_t>(q, SocLogLayout::kTimestamp);
                counts_.records += 2;
                if (run == kSpanRun) hand_on();
                p += 2 * size_;
                n -= 2 * size_;
                continue;
            }
        }
        hand_on();
        TaskTime t;
        if (!soc_log(p, t)) {
            ++counts_.skipped;
            p += size_;
            n -= size_;
            continue;
        }
        TaskTime end;
        if (t.begin && !t.ffts && n >= 2 * size_ && soc_log(p + size_, end) && !end.begin && !end.ffts &&
            end.task == t.task && end.stream == t.stream) {
            counts_.records += 2;
            sink.on_task_span(t, end);
            p += 2 * size_;
            n -= 2 * size_;
            continue;
        }
        ++counts_.records;
        sink.on_task_time(t);
        p += size_;
        n -= size_;
    }
    hand_on();
    return static_cast<size_t>(p - from);
}

void ChannelDecoder::decode_step_trace(const unsigned char *r, ChannelSink &sink) {
    uint8_t type = r[StepTraceLayout::kRptType];
    if (type == kRptTsMemcpy || type == kRptTaskType || type == kRptFlipInfo) {
        ++counts_.skipped;
        return;
    }
    uint16_t buf_size = load<uint16_t>(r, StepTraceLayout::kBufSize);
    if (type != kRptStepTrace || (buf_size != 0 && buf_size != StepTraceLayout::kSize)) {
        ++counts_.malformed;
        return;
    }
    StepTrace s;
    s.device = device_;
    s.ticks = load<uint64_t>(r, StepTraceLayout::kTimestamp);
    s.index_id = load<uint64_t>(r, StepTraceLayout::kIndexId);
    s.model_id = load<uint64_t>(r, StepTraceLayout::kModelId);
    if (chip_ == kChipV6) {
        s.tag = load<uint16_t>(r, StepTraceLayout::kV6Tag);
        s.stream = load<uint16_t>(r, StepTraceLayout::kV6Stream);
        s.task = load<uint32_t>(r, StepTraceLayout::kV6Task);
    } else {
        s.stream = load<uint16_t>(r, StepTraceLayout::kStream);
        s.task = load<uint16_t>(r, StepTraceLayout::kTask);
        s.tag = load<uint16_t>(r, StepTraceLayout::kTag);
    }
    ++counts_.records;
    sink.on_step_trace(s);
}

}  // namespace mspti::device
