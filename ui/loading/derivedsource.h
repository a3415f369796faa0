// SPDX-License-Identifier: MIT
#pragma once

class QObject;

namespace gaplens::ui {

class DerivedCaptureController;

// Which DerivedCaptureController a reader (TimelineModel, PanelContext) reads: the reader's
// own, made with it, unless a window shares one with it. The reader connects to current()
// whenever use() switches; the connections it had to the previous one are dropped here.
class DerivedSource
{
public:
    // Makes the own controller, a child of `reader`. Nothing is read until the first use().
    explicit DerivedSource(QObject *reader);

    DerivedCaptureController *own() const { return m_own; }
    DerivedCaptureController *current() const { return m_current; }
    DerivedCaptureController *operator->() const { return m_current; }
    bool isOwn() const { return m_current == m_own; }

    // Reads `source` (null: the own controller) from now on. False when that is the one read
    // already; else the reader's connections to the previous one are gone and it connects
    // to current().
    bool use(DerivedCaptureController *source);

private:
    QObject *m_reader;
    DerivedCaptureController *m_own;
    DerivedCaptureController *m_current = nullptr;
};

} // namespace gaplens::ui
