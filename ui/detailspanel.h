// SPDX-License-Identifier: MIT
#pragma once
#include "ui/timeline/hitresult.h"

#include <QTextBrowser>

namespace gaplens::ui {

class TimelineModel;

// Shows everything about the selected kernel, copy, API call, NVTX range, fold or gap.
class DetailsPanel : public QTextBrowser
{
    Q_OBJECT
public:
    explicit DetailsPanel(const TimelineModel &model, QWidget *parent = nullptr);
    void showHit(const HitResult &hit);

private:
    const TimelineModel &m_model;
};

} // namespace gaplens::ui
