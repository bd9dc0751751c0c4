/**
 * @file mspti.h
 * @brief Umbrella header of the msPTI C ABI: activity, callback, callback ids, results.
 */
#ifndef MSPTI_H
#define MSPTI_H

#include "mspti_result.h"
#include "mspti_activity.h"
#include "mspti_cbid.h"
#include "mspti_callback.h"

#endif /* MSPTI_H */
