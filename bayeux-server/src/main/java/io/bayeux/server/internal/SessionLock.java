package io.bayeux.server.internal;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * A session's lock: reentrant and non-fair, what {@link java.util.concurrent.locks.ReentrantLock}
 * does, in one object instead of two (the lock and its synchronizer), since every session has
 * one. Parks waiting threads (virtual ones are unmounted), unlike {@code synchronized}, which pins
 * a virtual thread on JDK 21 to 23.
 */
final class SessionLock extends AbstractQueuedSynchronizer {
    void lock() {
        acquire(1);
    }

    void unlock() {
        release(1);
    }

    boolean isHeldByCurrentThread() {
        return isHeldExclusively();
    }

    @Override
    protected boolean tryAcquire(int acquires) {
        Thread current = Thread.currentThread();
        int count = getState();
        if (count == 0) {
            if (compareAndSetState(0, acquires)) {
                setExclusiveOwnerThread(current);
                return true;
            }
        } else if (current == getExclusiveOwnerThread()) {
            int next = count + acquires;
            if (next < 0) {
                throw new Error("Maximum lock count exceeded");
            }
            setState(next);
            return true;
        }
        return false;
    }

    @Override
    protected boolean tryRelease(int releases) {
        if (Thread.currentThread() != getExclusiveOwnerThread()) {
            throw new IllegalMonitorStateException("Not the owner of " + this);
        }
        int count = getState() - releases;
        boolean free = count == 0;
        if (free) {
            setExclusiveOwnerThread(null);
        }
        setState(count);
        return free;
    }

    @Override
    protected boolean isHeldExclusively() {
        return getExclusiveOwnerThread() == Thread.currentThread();
    }
}
