/*
 * monitor.i: the C++ Monitor API (include/mspti/monitor_types.h, include/mspti/monitor.h),
 * language-neutral. A language module %includes this after its own typemaps.
 *
 * - Directors on the callback interfaces, so that target-language objects can implement them.
 * - The enums, records and per-kind monitors come from generated headers (schema/records.py);
 *   schema.i lists their directors and ignores. SWIG does not follow #include, hence the %includes.
 * - The std::function overloads are C++ conveniences: ignored (callables are wrapped into
 *   directors by each language's package instead).
 * - The binding glue (DeliveryThreadHooks, CallbackErrorReported) is in src/monitor/binding/monitor_binding.h,
 *   which SWIG does not see.
 */

%{
#include "mspti/monitor_types.h"
#include "mspti/monitor.h"
%}

%include <stdint.i>
%include <std_string.i>

/* Directors, ignores and operator== of the generated kinds and records (schema/records.py). */
%include "schema.i"

%feature("director") mspti::MarkCallback;
%feature("director") mspti::RangeCallback;
%feature("director") mspti::BatchCallback;

%ignore mspti::MstxMonitor::start(std::function<void(const MarkerData &)>, std::function<void(const RangeMarkerData &)>);

%ignore mspti::detail::MonitorCore;
%ignore mspti::RecordBatch::data;

%include "mspti/monitor_records.h"
%include "mspti/monitor_types.h"
%include "mspti/monitor.h"
%include "mspti/monitor_kinds.h"
