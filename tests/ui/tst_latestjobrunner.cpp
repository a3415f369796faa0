// SPDX-License-Identifier: MIT
// The one "latest request wins" runner: only the newest job delivers, a discarded job sees its
// cancel token and never delivers, nothing reaches a destroyed receiver, and waitAndDeliver
// blocks for the newest result and delivers it once.
#include "ui/jobs/latestjobrunner.h"

#include <QSemaphore>
#include <QTest>

#include <memory>
#include <vector>

using namespace gaplens;
using namespace gaplens::ui;

namespace {

// A job that blocks until released, so tests decide the order things happen in.
struct Gate
{
    QSemaphore started, release;
};

// Starts a job that holds at `gate`, then posts progress that must never run (it fails the test
// with `never`) and returns `value`; each delivery counts in `deliveries`. Returns once the job
// is running, so the caller can destroy things under it before releasing the gate.
void startGatedJob(
    LatestJobRunner<int> &runner, const std::shared_ptr<Gate> &gate, int value, const char *never, int &deliveries)
{
    runner.start(
        [gate, value, never](const LatestJobContext &job) {
            gate->started.release();
            gate->release.acquire();
            job.post([never] { QFAIL(never); });
            return value;
        },
        [&deliveries](int) { ++deliveries; });
    gate->started.acquire();
}

} // namespace

class TestLatestJobRunner : public QObject
{
    Q_OBJECT
private slots:
    void onlyTheNewestJobDelivers()
    {
        QObject receiver;
        LatestJobRunner<int> runner(&receiver, nullptr, 2); // two threads: the jobs overlap
        std::vector<int> delivered;
        auto gate = std::make_shared<Gate>();
        runner.start(
            [gate](const LatestJobContext &) {
                gate->started.release();
                gate->release.acquire();
                return 1;
            },
            [&](int v) { delivered.push_back(v); });
        gate->started.acquire();
        const quint64 second
            = runner.start([](const LatestJobContext &) { return 2; }, [&](int v) { delivered.push_back(v); });
        QCOMPARE(second, quint64(2));
        QTRY_COMPARE(delivered, std::vector<int> { 2 });
        gate->release.release(); // the superseded job finishes after the newest one
        QTest::qWait(50);
        QCOMPARE(delivered, std::vector<int> { 2 });
        QVERIFY(!runner.isRunning());
    }

    void aSupersededJobSeesItsCancelToken()
    {
        QObject receiver;
        LatestJobRunner<bool> runner(&receiver);
        auto gate = std::make_shared<Gate>();
        auto sawCancel = std::make_shared<std::atomic<bool>>(false);
        int deliveries = 0;
        runner.start(
            [gate, sawCancel](const LatestJobContext &job) {
                gate->started.release();
                while (!job.isCancelled())
                    QThread::msleep(1);
                sawCancel->store(true);
                return true;
            },
            [&](bool) { ++deliveries; });
        gate->started.acquire();
        runner.discard();
        QTRY_VERIFY(sawCancel->load());
        QTest::qWait(50);
        QCOMPARE(deliveries, 0);
        QVERIFY(!runner.isRunning());
    }

    void requestStopStillDeliversWhatTheJobReturns()
    {
        QObject receiver;
        LatestJobRunner<bool> runner(&receiver);
        auto gate = std::make_shared<Gate>();
        std::vector<bool> delivered;
        runner.start(
            [gate](const LatestJobContext &job) {
                gate->started.release();
                while (!job.isCancelled())
                    QThread::msleep(1);
                return job.isCancelled();
            },
            [&](bool cancelled) { delivered.push_back(cancelled); });
        gate->started.acquire();
        runner.requestStop();
        QTRY_COMPARE(delivered, std::vector<bool> { true });
    }

    void nothingReachesADestroyedReceiver()
    {
        QThreadPool pool; // outlives the receiver and the runner
        auto gate = std::make_shared<Gate>();
        int deliveries = 0, progress = 0;
        {
            auto receiver = std::make_unique<QObject>();
            LatestJobRunner<int> runner(receiver.get(), &pool);
            startGatedJob(runner, gate, 7, "progress posted to a destroyed receiver", deliveries);
            receiver.reset(); // the runner still exists, the receiver does not
            gate->release.release();
            pool.waitForDone();
            QTest::qWait(50);
            QCOMPARE(deliveries, 0);
        }
        // The runner gone too, with the job still running on a pool that is not its own.
        {
            QObject receiver;
            auto runner = std::make_unique<LatestJobRunner<int>>(&receiver, &pool);
            startGatedJob(*runner, gate, 8, "progress posted after the runner was destroyed", deliveries);
            runner.reset();
            gate->release.release();
            pool.waitForDone();
            QTest::qWait(50);
            QCOMPARE(deliveries, 0);
        }
        // A live receiver gets both the progress and the result, progress first.
        QObject receiver;
        LatestJobRunner<int> runner(&receiver, &pool);
        std::vector<int> order;
        runner.start(
            [](const LatestJobContext &job) {
                job.post([] {});
                return 9;
            },
            [&](int v) { order.push_back(v); });
        runner.start(
            [&progress](const LatestJobContext &job) {
                job.post([&progress] { ++progress; });
                return 10;
            },
            [&](int v) { order.push_back(v); });
        QTRY_COMPARE(order, std::vector<int> { 10 });
        QCOMPARE(progress, 1);
    }

    void waitAndDeliverBlocksForTheNewestAndDeliversOnce()
    {
        QObject receiver;
        LatestJobRunner<int> runner(&receiver);
        QVERIFY(!runner.waitAndDeliver()); // nothing started
        std::vector<int> delivered;
        runner.start(
            [](const LatestJobContext &) {
                QThread::msleep(30);
                return 1;
            },
            [&](int v) { delivered.push_back(v); });
        runner.start(
            [](const LatestJobContext &) {
                QThread::msleep(30);
                return 2;
            },
            [&](int v) { delivered.push_back(v); });
        QVERIFY(runner.isRunning());
        QVERIFY(runner.waitAndDeliver()); // no event loop ran: delivered by the wait itself
        QCOMPARE(delivered, std::vector<int> { 2 });
        QVERIFY(!runner.isRunning());
        QTest::qWait(50); // the queued delivery of the same job is skipped
        QCOMPARE(delivered, std::vector<int> { 2 });
        QVERIFY(runner.waitAndDeliver()); // delivered before: still true, not delivered again
        QCOMPARE(delivered, std::vector<int> { 2 });
    }
};

QTEST_MAIN(TestLatestJobRunner)
#include "tst_latestjobrunner.moc"
