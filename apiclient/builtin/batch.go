package builtin

import "github.com/kubewire/kubewire/apiclient"

// Job runs pods until Completions of them succeed (batch/v1).
type Job struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 JobSpec   `json:"spec,omitzero"`
	Status               JobStatus `json:"status,omitzero"`
}

// Resource is apiclient.Jobs.
func (*Job) Resource() apiclient.Resource { return apiclient.Jobs }

// JobSpec is what a Job asks for. The template's RestartPolicy must be
// OnFailure or Never; the server makes the selector.
type JobSpec struct {
	Template                PodTemplateSpec `json:"template,omitzero"`
	Parallelism             *int32          `json:"parallelism,omitempty"`  // 1 when nil; 0 holds the pods
	Completions             *int32          `json:"completions,omitempty"`  // 1 when nil
	BackoffLimit            *int32          `json:"backoffLimit,omitempty"` // 6 when nil; 0: no retry
	ActiveDeadlineSeconds   *int64          `json:"activeDeadlineSeconds,omitempty"`
	TTLSecondsAfterFinished *int32          `json:"ttlSecondsAfterFinished,omitempty"` // 0: deleted once finished
	CompletionMode          string          `json:"completionMode,omitempty"`          // NonIndexed (the default), Indexed
	Suspend                 *bool           `json:"suspend,omitempty"`
}

// JobStatus is what the Job controller last saw. The Job is done when a
// condition Complete or Failed is True.
type JobStatus struct {
	StartTime      *apiclient.Time `json:"startTime,omitempty"`
	CompletionTime *apiclient.Time `json:"completionTime,omitempty"`
	Active         int32           `json:"active,omitempty"`
	Succeeded      int32           `json:"succeeded,omitempty"`
	Failed         int32           `json:"failed,omitempty"`
	Ready          *int32          `json:"ready,omitempty"`
	Conditions     []Condition     `json:"conditions,omitempty"`
}

// CronJob makes a Job from JobTemplate on a schedule (batch/v1).
type CronJob struct {
	apiclient.TypeMeta
	apiclient.ObjectMeta `json:"metadata"`
	Spec                 CronJobSpec   `json:"spec,omitzero"`
	Status               CronJobStatus `json:"status,omitzero"`
}

// Resource is apiclient.CronJobs.
func (*CronJob) Resource() apiclient.Resource { return apiclient.CronJobs }

// CronJobSpec is what a CronJob asks for.
type CronJobSpec struct {
	Schedule                   string          `json:"schedule,omitempty"` // cron syntax: "*/5 * * * *"
	TimeZone                   *string         `json:"timeZone,omitempty"` // "Europe/Paris"; the controller manager's zone when nil
	JobTemplate                JobTemplateSpec `json:"jobTemplate,omitzero"`
	ConcurrencyPolicy          string          `json:"concurrencyPolicy,omitempty"` // Allow (the default), Forbid, Replace
	Suspend                    *bool           `json:"suspend,omitempty"`
	StartingDeadlineSeconds    *int64          `json:"startingDeadlineSeconds,omitempty"`
	SuccessfulJobsHistoryLimit *int32          `json:"successfulJobsHistoryLimit,omitempty"` // 3 when nil
	FailedJobsHistoryLimit     *int32          `json:"failedJobsHistoryLimit,omitempty"`     // 1 when nil
}

// JobTemplateSpec is the Jobs a CronJob makes.
type JobTemplateSpec struct {
	Metadata apiclient.ObjectMeta `json:"metadata,omitzero"`
	Spec     JobSpec              `json:"spec,omitzero"`
}

// CronJobStatus is what the CronJob controller last saw.
type CronJobStatus struct {
	LastScheduleTime   *apiclient.Time `json:"lastScheduleTime,omitempty"`
	LastSuccessfulTime *apiclient.Time `json:"lastSuccessfulTime,omitempty"`
}
