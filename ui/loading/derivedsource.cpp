// SPDX-License-Identifier: MIT
#include "ui/loading/derivedsource.h"

#include "ui/loading/derivedcapturecontroller.h"

namespace gaplens::ui {

DerivedSource::DerivedSource(QObject *reader)
    : m_reader(reader)
    , m_own(new DerivedCaptureController(reader))
{
}

bool DerivedSource::use(DerivedCaptureController *source)
{
    if (!source)
        source = m_own;
    if (source == m_current)
        return false;
    if (m_current)
        QObject::disconnect(m_current, nullptr, m_reader, nullptr);
    m_current = source;
    return true;
}

} // namespace gaplens::ui
