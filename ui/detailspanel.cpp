// SPDX-License-Identifier: MIT
#include "ui/detailspanel.h"

#include "ui/timeline/hitdescriber.h"

namespace gaplens::ui {

DetailsPanel::DetailsPanel(const TimelineModel &model, QWidget *parent)
    : QTextBrowser(parent)
    , m_model(model)
{
    setOpenLinks(false);
    showHit({});
}

void DetailsPanel::showHit(const HitResult &hit)
{
    setHtml(detailsHtml(m_model, hit));
}

} // namespace gaplens::ui
