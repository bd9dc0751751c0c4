/**
 * @file vnpu_stream.h
 * @brief The virtual NPU's stream identities: which device and stream id an aclrtStream is, the ids
 *        its tasks carry in the device's profiling records (libascend_hal's channels).
 */
#ifndef VNPU_STREAM_H
#define VNPU_STREAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Device and stream ids of a stream.
 * @param stream An aclrtStream, or NULL for the current device's default stream.
 * @param[out] deviceId Receives the device id.
 * @param[out] streamId Receives the stream id.
 * @return 0 (ACL_SUCCESS) or an ACL error code for a bad stream or NULL outputs.
 */
int vnpuStreamGetIds(void *stream, uint32_t *deviceId, uint32_t *streamId);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_STREAM_H */
