/*
 * monitor.i: the C++ Monitor API (include/mspti/monitor_types.h, include/mspti/monitor.h),
 * language-neutral. A language module %includes this after its own typemaps.
 *
 * - Directors on the callback interfaces, so that target-language objects can implement them.
 * - The std::function overloads are C++ conveniences: ignored (callables are wrapped into
 *   directors by each language's package instead).
 * - DeliveryThreadHooks / CallbackErrorReported are for the binding's own glue, not for users.
 */

%{
#include "mspti/monitor_types.h"
#include "mspti/monitor.h"
%}

%include <stdint.i>
%include <std_string.i>

%feature("director") mspti::KernelCallback;
%feature("director") mspti::HcclCallback;
%feature("director") mspti::CommunicationCallback;
%feature("director") mspti::MarkCallback;
%feature("director") mspti::RangeCallback;
%feature("director") mspti::BatchCallback;

%ignore mspti::KernelMonitor::start(std::function<void(const KernelData &)>);
%ignore mspti::HcclMonitor::start(std::function<void(const HcclData &)>);
%ignore mspti::CommunicationMonitor::start(std::function<void(const CommunicationData &)>);
%ignore mspti::MstxMonitor::start(std::function<void(const MarkerData &)>, std::function<void(const RangeMarkerData &)>);

%ignore mspti::DeliveryThreadHooks;
%ignore mspti::set_delivery_thread_hooks;
%ignore mspti::free_kept_buffer;
%ignore mspti::CallbackErrorReported;
%ignore mspti::detail::MonitorCore;
%ignore mspti::RecordBatch::data;

/* Value types are compared in the target language; C++ operator== is not needed there. */
%ignore mspti::MsptiObjectId::operator==;
%ignore mspti::KernelData::operator==;
%ignore mspti::HcclData::operator==;
%ignore mspti::CommunicationData::operator==;
%ignore mspti::MarkerData::operator==;
%ignore mspti::RangeMarkerData::operator==;

%include "mspti/monitor_types.h"
%include "mspti/monitor.h"
